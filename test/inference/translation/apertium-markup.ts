/** Shared by the hostile-input and fuzz tests of the Apertium engine. */

/** Characters with a meaning in the Apertium stream format, or to one of its stages. */
export const MARKUP: readonly string[] = [...'^$@#*\\[]{}<>/~'];

export function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
