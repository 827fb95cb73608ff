/** Live scoring (SileroVad.openStream) against one pass over the whole audio, on the real weights. */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { LiveAudioConverter } from '../../../src/inference/live-audio/live-audio-converter.js';
import { SileroVad } from '../../../src/inference/speech-to-text/vad/silero-vad.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

const ONNX = join(REPO_ROOT, 'models/silero-vad-v6/silero_vad_v6.onnx');
const JFK = join(SPEECH_DIR, 'en_jfk.wav');

describe('Silero VAD on a live stream (real weights)', () => {
  let vad: SileroVad;
  before(async function () {
    // Installed by `npm run test-models` (scripts/test-models/silero-vad.sh); the clip is in the shared set.
    if (!existsSync(ONNX) || !existsSync(JFK)) this.skip();
    vad = await SileroVad.load(ONNX);
  });
  after(() => vad?.dispose());

  it('gives the probabilities of one whole pass, whatever the sizes of the pushes', async () => {
    const { samples } = await decodeAudio(readFileSync(JFK), { sampleRate: 16_000, maxSeconds: 60 });
    const whole = await vad.speechProbs(samples);
    const pcm = Buffer.alloc(samples.length * 2);
    samples.forEach((x, i) => pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x * 32767))), i * 2));
    const converter = new LiveAudioConverter(16_000, vad.openStream());
    const streamed: number[] = [];
    // Pushes of uneven sizes (odd sample counts included), as a network delivers them.
    for (let at = 0, step = 1; at < pcm.length; at += step * 2, step = (step * 7 + 333) % 3000 || 1) {
      streamed.push(...(await converter.push(pcm.subarray(at, Math.min(pcm.length, at + step * 2)))).speechProbabilities);
    }
    // speechProbs pads a final partial frame; the stream scores whole frames only. PCM16 rounding moves values a little.
    expect(streamed.length).to.equal(Math.floor(samples.length / 512));
    const worst = Math.max(...streamed.map((p, i) => Math.abs(p - whole[i]!)));
    expect(worst).to.be.lessThan(0.02);
  });
});
