/**
 * The speech clips (test/fixtures/speech) as a realtime client sends them: 24-kHz PCM16 (OpenAI's `pcm16` /
 * `audio/pcm`) or 8-kHz G.711 µ-law (`g711_ulaw` / `audio/pcmu`), the latter encoded by
 * wavefile, not by the server's own code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WaveFile } from 'wavefile';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { SPEECH_DIR } from '../audio/audio-test-helpers.js';

async function int16At(file: string, sampleRate: number): Promise<Int16Array> {
  const { samples } = await decodeAudio(readFileSync(join(SPEECH_DIR, file)), { sampleRate, maxSeconds: 120 });
  return Int16Array.from(samples, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32767))));
}

/** 16-bit little-endian mono PCM at 24 kHz. */
export async function pcm16At24k(file: string): Promise<Buffer> {
  const samples = await int16At(file, 24_000);
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** G.711 µ-law at 8 kHz, a byte a sample. */
export async function muLawAt8k(file: string): Promise<Buffer> {
  const wav = new WaveFile();
  wav.fromScratch(1, 8_000, '16', await int16At(file, 8_000));
  wav.toMuLaw();
  return Buffer.from((wav as unknown as { data: { samples: Uint8Array } }).data.samples);
}
