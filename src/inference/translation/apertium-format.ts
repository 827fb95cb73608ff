/**
 * Plain text ↔ Apertium stream format, done in-process instead of by spawning
 * apertium-destxt/apertium-retxt per request (APy spawns both for every request).
 * Works on one line at a time: line and paragraph breaks are kept by the caller.
 */

/** Characters with a meaning in the stream format (`^word/analysis<tag>$`, `[superblank]`, marks). */
const SPECIAL = /[\\[\]^$/@<>{}*#]/g;

/**
 * A number hyphenated to words ("4-month-old mice") comes out of eng-spa glued together
 * ("ratonesde4meses"): the transfer rules move the parts but the blanks between them are empty.
 * Spaced parts ("4 month old mice") translate correctly ("ratones de 4 meses"). Scores like
 * "2-1" and names like "COVID-19" do not match.
 */
const NUMBER_COMPOUND = /(?<![\p{L}\p{N}])\p{N}+(?:[.,]\p{N}+)?(?:[-‐–]\p{L}+)+/gu;

/** Turns one line of plain text into one null-flush chunk for the pipeline (without the `\0`). */
export function deformat(line: string): string {
  const text = line
    .replace(/\0/g, ' ')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim()
    .replace(NUMBER_COMPOUND, (compound) => compound.replace(/[-‐–]/g, ' '));
  // "~" marks post-generation rules and is consumed by the last stage even when escaped; inside
  // a superblank it passes every stage untouched. The analyser holds back a final "." until it
  // sees what follows (an abbreviation?) and drops it at the flush; an empty superblank after
  // the text gives it that context.
  return `${text.replace(SPECIAL, '\\$&').replace(/~/g, '[~]')}[]`;
}

/** Turns one translated chunk back into plain text: unescapes, drops superblanks, tidies blanks. */
export function reformat(chunk: string): string {
  let out = '';
  for (let index = 0; index < chunk.length; index++) {
    const char = chunk[index] as string;
    if (char === '\\' && index + 1 < chunk.length) {
      out += chunk[++index];
    } else if (char === '[') {
      // A superblank: only the ones deformat() added reach here (input brackets are escaped);
      // their content is text to keep ("~"), their brackets are not.
      for (index++; index < chunk.length && chunk[index] !== ']'; index++) {
        if (chunk[index] === '\\') index++;
        out += chunk[index] ?? '';
      }
    } else {
      out += char;
    }
  }
  // Dropped words (English "he said" → "dijo") leave doubled or leading blanks behind.
  return out.replace(/[ \t]+/g, ' ').replace(/ ([,.;:!?)\]}»])/g, '$1').trim();
}
