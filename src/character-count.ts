/**
 * Characters as limits and usage count them: Unicode code points, so "é" and "😀" are one each,
 * where `length` counts UTF-16 units and an emoji as two. (A flag or a family emoji is several
 * code points.) Ajv's maxLength counts the same way.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _codePoint of text) count++;
  return count;
}
