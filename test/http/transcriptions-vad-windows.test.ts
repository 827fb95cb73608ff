/**
 * VAD speech windows over HTTP, with the real whisper-tiny.en and Silero VAD v6 (`npm run
 * test-models`; skipped when either is absent): every English clip of
 * test/fixtures/speech, with 3–6 s pauses and two speakers 25 dB quieter, comes back with its words in
 * order and each word stamped inside its own clip. Joined into one stream, the speech after a
 * window that stopped early was lost and later times were wrong (issue 26).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { encodeWav } from '../../src/audio/encode-wav.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { decodeClipsOnce } from '../../scripts/eval/lib/long-speech.js';
import { normalizeTranscript } from '../../scripts/eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../../scripts/eval/lib/speech-clips.js';
import { wordErrors } from '../../scripts/eval/lib/wer.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const RATE = 16_000;
const REAL_MODELS_DIR = join(REPO_ROOT, 'models');
const PAUSES_SECONDS = [3, 5.5, 4, 6, 3.5, 4.5, 5, 3, 6, 4];
/** Clips (by index) played 25 dB quieter than recorded. */
const QUIET = new Set([3, 7]);

interface Word {
  word: string;
  start: number;
  end: number;
}

describe('vad_filter windows with the real whisper-tiny.en and Silero VAD v6 on the speech clips with long pauses', function () {
  this.timeout(300_000);
  let app: TestApp;
  let placed: Array<{ file: string; reference: string; start: number; end: number }>;
  let wav: Buffer;

  before(async function () {
    const ids = ['whisper-tiny.en', 'silero-vad-v6'];
    if (!ids.every((id) => existsSync(join(REAL_MODELS_DIR, id, '.installed.json')))) this.skip(); // `npm run test-models` installs both models
    const manifest = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
    app = await createTestApp({ manifest: { models: manifest.models.filter((model) => ids.includes(model.id)) }, modelsDir: REAL_MODELS_DIR });
    const clips = await decodeClipsOnce(await readSpeechClips(SPEECH_DIR));
    const length = clips.reduce((sum, clip, index) => sum + clip.samples.length + Math.round((PAUSES_SECONDS[index % PAUSES_SECONDS.length] ?? 0) * RATE), 0);
    const samples = new Float32Array(length);
    placed = [];
    let offset = 0;
    for (const [index, clip] of clips.entries()) {
      const gain = QUIET.has(index) ? 10 ** (-25 / 20) : 1;
      for (let i = 0; i < clip.samples.length; i++) samples[offset + i] = clip.samples[i]! * gain;
      placed.push({ file: clip.file, reference: clip.reference, start: offset / RATE, end: (offset + clip.samples.length) / RATE });
      offset += clip.samples.length + Math.round(PAUSES_SECONDS[index % PAUSES_SECONDS.length]! * RATE);
    }
    wav = Buffer.from(encodeWav({ samples, sampleRate: RATE }));
  });
  after(() => app?.close());

  it("returns every clip's words in order, each word stamped inside its own clip", async () => {
    const res = await app.request
      .post('/v1/audio/transcriptions')
      .set('Authorization', bearer())
      .field('model', 'whisper-tiny.en')
      .field('response_format', 'verbose_json')
      .field('timestamp_granularities[]', 'word')
      .attach('file', wav, 'meeting.wav');
    expect(res.status, res.text).to.equal(200);
    const words = res.body.words as Word[];
    const report = JSON.stringify(words.map(({ word, start }) => `${start}:${word}`));
    // Whisper stamps a word up to a few tenths of a second off the speech; the VAD's pad is 0.4 s.
    const clipOf = (word: Word) => placed.findIndex((clip) => word.start >= clip.start - 0.5 && word.end <= clip.end + 0.5);
    let previous: Word | undefined;
    const heard = placed.map(() => [] as string[]);
    for (const word of words) {
      const index = clipOf(word);
      expect(index, `"${word.word}" at ${word.start}–${word.end} is inside a clip: ${report}`).to.be.at.least(0);
      if (previous) expect(word.start, `in order: ${report}`).to.be.at.least(previous.start);
      heard[index]!.push(word.word);
      previous = word;
    }
    for (const [index, clip] of placed.entries()) {
      const { wer } = wordErrors(normalizeTranscript(clip.reference), normalizeTranscript(heard[index]!.join(' ')));
      // tiny.en mishears a word or two ("ten of clubs" may come back as "Tim of clubs"); a lost clip is WER 1.
      expect(wer, `${clip.file} (${QUIET.has(index) ? 'quiet' : 'loud'}) at ${clip.start.toFixed(1)} s heard as "${heard[index]!.join('')}"`).to.be.at.most(
        0.5,
      );
    }
  });
});
