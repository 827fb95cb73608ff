/**
 * The large-v3 family's shape over real HTTP, on a random-weight export
 * (test/fixtures/models/whisper-v3-turbo-random, scripts/fixtures/whisper_v3_fixture.py): 128 mel
 * bins, a 4-layer decoder under a deeper encoder, and large-v3's vocabulary, where `<|yue|>` moved
 * every later special token one id up. Random weights give random text, so only shapes, times
 * and token ids are checked.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT, sine, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const { WaveFile } = createRequire(import.meta.url)('wavefile') as typeof import('wavefile');

const FIXTURE_DIR = join(REPO_ROOT, 'test/fixtures/models');
const MODEL = 'whisper-v3-turbo-random';
const generation = JSON.parse(readFileSync(join(FIXTURE_DIR, MODEL, 'generation_config.json'), 'utf8')) as {
  no_timestamps_token_id: number;
  eos_token_id: number;
  lang_to_id: Record<string, number>;
};
const config = JSON.parse(readFileSync(join(FIXTURE_DIR, MODEL, 'config.json'), 'utf8')) as { vocab_size: number };
/** `<|0.00|>`: large-v3's is 50365, one above base/large-v2's. */
const TIMESTAMP_BEGIN = generation.no_timestamps_token_id + 1;

/** A few tokens per window keep the random model fast. */
const MANIFEST: Manifest = {
  models: [
    {
      id: MODEL,
      task: 'speech-to-text',
      engine: 'transformers-asr',
      description: 'random large-v3-turbo-shaped Whisper',
      license: 'MIT',
      options: { maxNewTokens: 6 },
    },
  ],
};

interface Segment {
  id: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  avg_logprob: number;
  no_speech_prob: number;
}
interface Word {
  word: string;
  start: number;
  end: number;
}

function wavBytes(samples: Float32Array, sampleRate = 16000): Buffer {
  const wav = new WaveFile();
  wav.fromScratch(
    1,
    sampleRate,
    '16',
    Int16Array.from(samples, (x) => Math.round(x * 32767)),
  );
  return Buffer.from(wav.toBuffer());
}

/** Text tokens sit below `<|endoftext|>`, timestamps from `<|0.00|>` up to the vocabulary's end; no marker in between is ever sampled. */
function expectSaneTokens(segments: Segment[]): void {
  for (const segment of segments) {
    for (const token of segment.tokens) {
      expect(token).to.be.a('number').and.satisfy(Number.isInteger);
      expect(token < generation.eos_token_id || (token >= TIMESTAMP_BEGIN && token < config.vocab_size), `token ${token}`).to.equal(true);
    }
  }
}

function expectOrderedWithin(segments: Segment[], duration: number): void {
  segments.forEach((segment, index) => {
    expect(segment.id).to.equal(index);
    expect(segment.start).to.be.at.least(0);
    expect(segment.end).to.be.at.least(segment.start);
    expect(segment.end).to.be.at.most(duration);
    if (index > 0) expect(segment.start).to.be.at.least(segments[index - 1]!.start);
    expect(segment.avg_logprob).to.be.at.most(0);
    expect(segment.no_speech_prob).to.be.within(0, 1);
  });
}

function expectWords(words: Word[], duration: number): void {
  for (const [index, word] of words.entries()) {
    expect(word.word).to.be.a('string');
    expect(word.end).to.be.at.least(word.start);
    expect(word.end).to.be.at.most(duration);
    if (index > 0) expect(word.start).to.be.at.least(words[index - 1]!.start);
  }
}

describe('speech to text on a large-v3-turbo-shaped Whisper (random weights: 128 mel bins, 4-layer decoder, v3 vocabulary)', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: FIXTURE_DIR });
  });
  after(() => app.close());

  const post = (fields: Record<string, string | string[]>, file: { bytes: Buffer; name: string; type: string }) => {
    let request = app.request.post('/v1/audio/transcriptions').set('Authorization', bearer());
    for (const [name, value] of Object.entries({ model: MODEL, ...fields })) {
      for (const one of Array.isArray(value) ? value : [value]) request = request.field(name, one);
    }
    return request.attach('file', file.bytes, { filename: file.name, contentType: file.type });
  };
  const jfk = () => ({ bytes: readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), name: 'jfk.mp3', type: 'audio/mpeg' });

  it('the fixture has the large-v3 layout these tests rely on', () => {
    const preprocessor = JSON.parse(readFileSync(join(FIXTURE_DIR, MODEL, 'preprocessor_config.json'), 'utf8')) as { feature_size: number };
    const model = JSON.parse(readFileSync(join(FIXTURE_DIR, MODEL, 'config.json'), 'utf8')) as Record<string, number>;
    expect(preprocessor.feature_size).to.equal(128);
    expect(model).to.include({ num_mel_bins: 128, decoder_layers: 4, vocab_size: 51866 });
    expect(model.encoder_layers).to.be.above(model.decoder_layers!);
    expect(generation.lang_to_id['<|yue|>']).to.equal(50358);
    expect(TIMESTAMP_BEGIN).to.equal(50365);
  });

  it('answers json {text, usage}', async () => {
    const res = await post({ response_format: 'json' }, jfk());
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['text', 'usage']);
    expect(res.body.text).to.be.a('string');
  });

  it('answers verbose_json with segments and words: times inside the audio, text and timestamp token ids of the v3 vocabulary', async () => {
    const res = await post({ response_format: 'verbose_json', language: 'en', 'timestamp_granularities[]': ['word', 'segment'] }, jfk());
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ task: 'transcribe', language: 'english' });
    expect(res.body.duration).to.be.closeTo(11, 0.1);
    const segments = res.body.segments as Segment[];
    expect(segments.length).to.be.above(0);
    expectOrderedWithin(segments, res.body.duration);
    expectSaneTokens(segments);
    expect(res.body.words).to.be.an('array');
    expectWords(res.body.words as Word[], res.body.duration);
  });

  it('decodes a 65-s upload window by window (verbose_json with words)', async () => {
    const res = await post(
      { response_format: 'verbose_json', 'timestamp_granularities[]': ['word', 'segment'] },
      { bytes: wavBytes(sine(220, 16000, 65, 0.3)), name: 'long.wav', type: 'audio/wav' },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.duration).to.equal(65);
    const segments = res.body.segments as Segment[];
    expect(segments.length).to.be.above(0);
    expectOrderedWithin(segments, 65);
    expectSaneTokens(segments);
    // Three windows are decoded, so some segment lies past the first 30 s.
    expect(segments.at(-1)!.end).to.be.above(30);
    expectWords(res.body.words as Word[], 65);
  });

  it('transcribes in Cantonese (yue), a language only the v3 vocabulary has, as json and verbose_json', async () => {
    // json of one window is transformers.js's pipeline unless the language is one it does not know.
    const json = await post({ response_format: 'json', language: 'yue' }, jfk());
    expect(json.status, json.text).to.equal(200);
    expect(json.body.text).to.be.a('string');
    const verbose = await post({ response_format: 'verbose_json', language: 'yue' }, jfk());
    expect(verbose.status, verbose.text).to.equal(200);
    expect(verbose.body.language).to.equal('cantonese');
    expectSaneTokens(verbose.body.segments as Segment[]);
  });
});
