/**
 * Plain text ↔ Apertium stream format, done in-process instead of by spawning
 * apertium-destxt/apertium-retxt per request (APy spawns both for every request).
 * Works on one line at a time: line and paragraph breaks are kept by the caller.
 *
 * Every character of the input comes back as text, never as markup: the stream format's
 * characters are escaped the way apertium-destxt escapes them, except for the few that some
 * stage misreads even when escaped (HIDDEN), which travel inside a superblank instead.
 */

/** Characters with a meaning in the stream format (`^word/analysis<tag>$`, `[superblank]`, marks). */
const ESCAPED = /^[\\[\]$/@<>{}*#]$/;

/**
 * Characters that a stage misreads even when escaped. Each travels as a superblank holding its
 * code point (`[U+005E]`): every stage copies a superblank verbatim, and none of these bytes
 * reaches a stage as text.
 * - `^`: lrx-proc (lexical selection) starts a word at every `^`, escaped or not, then reads up to
 *   the next `$`, through the null flushes that end this chunk and the chunks of the requests
 *   behind it: a lone `^` hung its request and swallowed the answers of everyone else.
 * - `~`: post-generation (`lt-proc -p`) consumes it as its own mark even when escaped.
 */
const HIDDEN = /^[\^~]$/;

/** A superblank deformat() wrote for a HIDDEN character. */
const HIDDEN_SUPERBLANK = /^U\+([0-9A-F]{4,6})$/;

/**
 * A number hyphenated to words ("4-month-old mice") comes out of eng-spa glued together
 * ("ratonesde4meses"): the transfer rules move the parts but the blanks between them are empty.
 * Spaced parts ("4 month old mice") translate correctly ("ratones de 4 meses"). Scores like
 * "2-1" and names like "COVID-19" do not match.
 */
const NUMBER_COMPOUND = /(?<![\p{L}\p{N}])\p{N}+(?:[.,]\p{N}+)?(?:[-‐–]\p{L}+)+/gu;

/**
 * C0/C1 control characters other than blanks, and lone UTF-16 surrogates: not text, and a lone
 * surrogate could only reach the processes as U+FFFD anyway. They become blanks.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const NOT_TEXT = /[\0-\x08\x0e-\x1f\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The longest run of non-blank characters sent as one piece. lt-proc keeps at most 2048
 * characters of look-ahead while a dictionary path is still alive, and silently drops text past
 * that ("a.a.a.…", "e.g.e.g.…", "4-a4-a…" lost most of their text); longer runs are cut by an
 * empty superblank, which every stage treats as a blank and reformat() removes again. No word of
 * a natural language is this long.
 */
export const MAX_RUN_CHARS = 256;

/** Turns one line of plain text into one null-flush chunk for the pipeline (without the `\0`). */
export function deformat(line: string): string {
  const text = line
    .replace(NOT_TEXT, ' ')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim()
    .replace(NUMBER_COMPOUND, (compound) => compound.replace(/[-‐–]/g, ' '));
  let chunk = '';
  let run = 0;
  for (const char of text) {
    if (char === ' ') {
      run = 0;
    } else if (++run > MAX_RUN_CHARS) {
      chunk += '[]';
      run = 1;
    }
    chunk += HIDDEN.test(char) ? hide(char) : ESCAPED.test(char) ? `\\${char}` : char;
  }
  // The analyser holds back a final "." until it sees what follows (an abbreviation?) and drops
  // it at the flush; an empty superblank after the text gives it that context.
  return `${chunk}[]`;
}

function hide(char: string): string {
  return `[U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}]`;
}

/**
 * Turns one translated chunk back into plain text: unescapes, gives back the characters
 * deformat() hid in superblanks, drops the other superblanks, tidies blanks.
 *
 * `*`, `#` and `@` are kept as text. Apertium marks unknown (`*`), untranslatable (`@`) and
 * ungeneratable (`#`) words with them, but the generator drops those marks itself unless the
 * model is configured with `markUnknown` (lt-proc `-n`, as `apertium -u` does); so any that
 * arrive here are the user's own characters, or marks the operator asked to see.
 */
export function reformat(chunk: string): string {
  let out = '';
  for (let index = 0; index < chunk.length; index++) {
    const char = chunk[index] as string;
    if (char === '\\' && index + 1 < chunk.length) {
      out += chunk[++index];
    } else if (char === '[') {
      // A superblank: only deformat() writes them (input brackets are escaped).
      let content = '';
      for (index++; index < chunk.length && chunk[index] !== ']'; index++) {
        if (chunk[index] === '\\') index++;
        content += chunk[index] ?? '';
      }
      const hidden = HIDDEN_SUPERBLANK.exec(content);
      out += hidden ? String.fromCodePoint(Number.parseInt(hidden[1] as string, 16)) : content;
    } else {
      out += char;
    }
  }
  // Dropped words (English "he said" → "dijo") leave doubled or leading blanks behind.
  return out
    .replace(/[ \t]+/g, ' ')
    .replace(/ ([,.;:!?)\]}»])/g, '$1')
    .trim();
}
