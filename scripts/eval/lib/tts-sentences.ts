/**
 * The sentences of the shared TTS evaluation set (`sentences.txt`, one per line). The set lives
 * outside the repository (EVAL_TTS_DIR, default /work/shared/eval/tts) and is never copied in.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export function ttsDir(): string {
  return process.env.EVAL_TTS_DIR ?? '/work/shared/eval/tts';
}

/** The non-empty, trimmed lines; the first `limit` of them when given. */
export async function readTtsSentences(limit?: number): Promise<string[]> {
  return (await readFile(join(ttsDir(), 'sentences.txt'), 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, limit);
}
