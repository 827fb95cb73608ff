/**
 * The sentences of the TTS evaluation set (`sentences.txt`, one per line). The set lives
 * outside the repository (EVAL_TTS_DIR or EVAL_DIR, see eval-data.ts) and is never copied in.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evalSetDir } from './eval-data.js';

export function ttsDir(): string {
  return evalSetDir('tts');
}

/** The non-empty, trimmed lines; the first `limit` of them when given. */
export async function readTtsSentences(limit?: number): Promise<string[]> {
  return (await readFile(join(ttsDir(), 'sentences.txt'), 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, limit);
}
