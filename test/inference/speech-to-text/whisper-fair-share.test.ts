/**
 * The real Whisper tiny.en shared between two keys (fair-queue.ts, whisper-in-steps.ts), when
 * installed (`npm run test-models`); skipped otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DecodingOptions, EncodedAudio, Transcriber } from '../../../src/inference/types.js';
import { asRequester } from '../../../src/requester.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { loadRealModel, realModel } from '../../helpers/real-models.js';

/**
 * Every temperature fails its thresholds, so the window is decoded at each: three greedy decodes
 * (greedy, so each stops where the speech does and the test stays quick).
 */
const EVERY_FALLBACK: DecodingOptions = {
  temperatures: [0, 0, 0],
  compressionRatioThreshold: 1,
  logProbThreshold: 0,
  noSpeechThreshold: 1,
};

describe('whisper-tiny.en shared between keys (real weights)', () => {
  let transcriber: Transcriber;
  const jfk = (): EncodedAudio => ({ bytes: readFileSync(join(REPO_ROOT, 'samples', 'jfk.mp3')), contentType: 'audio/mpeg', maxSeconds: 60 });
  before(async function () {
    if (!realModel('whisper-tiny.en').installed) {
      this.skip(); // not installed: run `npm run test-models` to include this test
    }
    transcriber = await loadRealModel('whisper-tiny.en', 'speech-to-text');
  });
  after(() => transcriber?.dispose());

  it("answers a second key's short request before a long one sent first by another key finishes", async function () {
    this.timeout(60_000);
    const finished: string[] = [];
    const long = asRequester('key A', () => transcriber.transcribe(jfk(), { decoding: EVERY_FALLBACK })).then((transcript) => {
      finished.push('A');
      return transcript;
    });
    const short = asRequester('key B', () => transcriber.transcribe(jfk())).then((transcript) => {
      finished.push('B');
      return transcript;
    });
    const [a, b] = await Promise.all([long, short]);
    expect(finished).to.deep.equal(['B', 'A']);
    expect(b.text).to.match(/ask not what your country can do for you/i);
    expect(a.segments ?? a.text).to.not.equal(undefined);
  });
});
