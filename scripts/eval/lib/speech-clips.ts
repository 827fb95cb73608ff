/**
 * The English clips of a speech set (`transcripts.tsv` + audio files), as the bytes a client
 * would upload: the evaluation set outside the repository for the benches (EVAL_SPEECH_DIR or
 * EVAL_DIR, see eval-data.ts), test/fixtures/speech for the tests.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PcmAudio } from '../../../src/audio/pcm-audio.js';
import { evalSetDir } from './eval-data.js';

export interface SpeechClip {
  file: string;
  reference: string;
  /** The file as uploaded; absent for headerless PCM, which is given as `pcm` instead. */
  bytes?: Uint8Array;
  /** Headerless s16le files (`*_16k_s16le_mono.raw`), already converted to PCM. */
  pcm?: PcmAudio;
}

export function speechDir(): string {
  return evalSetDir('speech');
}

/** Clips whose file name starts with `<language>_` (default: English). */
export async function readSpeechClips(dir = speechDir(), language = 'en'): Promise<SpeechClip[]> {
  const tsv = await readFile(join(dir, 'transcripts.tsv'), 'utf8');
  const rows = tsv
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return { file: line.slice(0, tab), reference: line.slice(tab + 1).trim() };
    })
    .filter((row) => row.file.startsWith(`${language}_`));
  return Promise.all(
    rows.map(async (row) => {
      const bytes = new Uint8Array(await readFile(join(dir, row.file)));
      return row.file.endsWith('.raw') ? { ...row, pcm: rawToPcm(row.file, bytes) } : { ...row, bytes };
    }),
  );
}

/** `name_16k_s16le_mono.raw`: the rate and sample format are in the name, as clients must state them. */
function rawToPcm(file: string, bytes: Uint8Array): PcmAudio {
  const match = /_(\d+)k_s16le_mono\.raw$/.exec(file);
  if (!match) throw new Error(`${file}: raw files must be named *_<rate>k_s16le_mono.raw`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Float32Array(bytes.byteLength >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(2 * i, true) / 32768;
  return { samples, sampleRate: Number(match[1]) * 1000 };
}
