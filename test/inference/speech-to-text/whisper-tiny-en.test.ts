/**
 * The real Whisper tiny.en, when installed (`npm run test-models`); skipped otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { encodeWav } from '../../../src/audio/encode-wav.js';
import type { EncodedAudio, Transcriber } from '../../../src/inference/types.js';
import { AUDIO_FIXTURES } from '../../audio/audio-test-helpers.js';
import { loadRealModel, realModel } from '../../helpers/real-models.js';
import { abortEachAfter, coresBusyOver, cpuUntilIdle } from '../cpu-load.js';

/** A WAV of about `seconds`, the tone fixture (5 s, 44.1 kHz stereo FLAC) repeated. */
async function longWav(seconds: number): Promise<EncodedAudio> {
  const clip = await decodeAudio(readFileSync(join(AUDIO_FIXTURES, 'tone-44k1-stereo.flac')), { maxSeconds: 60, sampleRate: 16_000 });
  const repeats = Math.ceil(seconds / (clip.samples.length / clip.sampleRate));
  const samples = new Float32Array(clip.samples.length * repeats);
  for (let index = 0; index < repeats; index++) samples.set(clip.samples, index * clip.samples.length);
  return { bytes: encodeWav({ samples, sampleRate: clip.sampleRate }), contentType: 'audio/wav', maxSeconds: 600 };
}

describe('whisper-tiny.en (real weights)', () => {
  let transcriber: Transcriber;
  before(async function () {
    if (!realModel('whisper-tiny.en').installed) {
      this.skip(); // not installed: run `npm run test-models` to include this test
    }
    transcriber = await loadRealModel('whisper-tiny.en', 'speech-to-text');
  });
  after(() => transcriber?.dispose());

  it('drops aborted transcriptions, running and queued: they reject at once, the CPU goes idle, and the next request answers', async function () {
    this.timeout(180_000);
    const audio = await longWav(60);
    const controllers = Array.from({ length: 4 }, () => new AbortController());
    // The first one runs; the others wait in the worker's queue.
    const outcomes = controllers.map(({ signal }) =>
      // vadFilter off: the tone holds no speech, and this test is about stopping Whisper itself.
      transcriber.transcribe({ ...audio, bytes: audio.bytes.slice() }, { signal, vadFilter: false }).then(
        () => 'finished',
        (error: unknown) => error,
      ),
    );
    await abortEachAfter(300, controllers, outcomes);
    // The running one stops at its next step. The encoder pass of a 30-s window cannot be
    // interrupted (about 0.5–1 CPU-second for tiny.en); the decoder steps after it can, and the
    // queued ones never start. Without cancellation, ~9 CPU-seconds of work would remain.
    const { cpuSeconds, settled } = await cpuUntilIdle();
    const cores = await coresBusyOver(2_000);

    const started = Date.now();
    const transcript = await transcriber.transcribe(await longWav(5));
    const shortMs = Date.now() - started;
    console.log(
      `      after the aborts: ${cpuSeconds.toFixed(2)} CPU-s until idle, then ${cores.toFixed(3)} cores over 2 s; a 5-s request then took ${shortMs} ms`,
    );
    expect(settled, 'went idle').to.equal(true);
    expect(cpuSeconds).to.be.below(2.5);
    expect(cores).to.be.below(0.3);
    expect(transcript.duration).to.be.closeTo(5, 0.5);
    expect(shortMs).to.be.below(60_000);
  });
});
