/**
 * Reads an Apertium mode file (`/usr/share/apertium/modes/<pair>.mode`, a shell pipeline) into
 * argv arrays that can be spawned one process per stage, each in null-flush mode (`-z`): a `\0`
 * on stdin makes every stage finish the current text, write a `\0` and flush. That is what lets
 * one long-lived pipeline serve many requests, the way Apertium APy drives its pairs.
 */
import { readFile } from 'node:fs/promises';

interface ModeOptions {
  /** Keep `*` marks on unknown words (`lt-proc -g`); the default drops them (`-n`, like `apertium -u`). */
  markUnknown?: boolean;
}

/** Stages that have no null-flush switch (or flush on their own); APy makes the same exceptions. */
const NO_Z_FLAG = /^(.*\/)?(vislcg3|cg-mwesplit|hfst-tokeni[sz]e|divvun-suggest)$/;

class ApertiumModeError extends Error {
  override name = 'ApertiumModeError';
}

export async function readModeFile(path: string, options: ModeOptions = {}): Promise<string[][]> {
  return parseMode(await readFile(path, 'utf8'), options, path);
}

export function parseMode(text: string, options: ModeOptions = {}, origin = 'mode'): string[][] {
  const stages = splitPipeline(text.trim()).map((stage) => shellWords(stage, origin));
  if (stages.length === 0 || stages.some((argv) => argv.length === 0)) {
    throw new ApertiumModeError(`${origin}: not a pipeline of commands`);
  }
  return stages.map((argv) => {
    const [program, ...args] = argv as [string, ...string[]];
    const expanded = args
      .map((arg) => (arg === '$1' ? (options.markUnknown ? '-g' : '-n') : arg))
      // $2 carries optional tagger flags (`apertium -a`); we pass none.
      .filter((arg) => arg !== '$2');
    const needsZ = !NO_Z_FLAG.test(program) && !expanded.includes('-z');
    return needsZ ? [program, '-z', ...expanded] : [program, ...expanded];
  });
}

/** Splits on `|` outside quotes. */
function splitPipeline(text: string): string[] {
  const stages: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '|') {
      stages.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  stages.push(current);
  return stages.map((stage) => stage.trim());
}

/** The subset of shell word splitting mode files use: blanks, single and double quotes. */
function shellWords(stage: string, origin: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of stage) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote) throw new ApertiumModeError(`${origin}: unbalanced quote in "${stage}"`);
  if (word !== undefined) words.push(word);
  return words;
}
