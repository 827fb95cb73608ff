/**
 * What withFastWhisperFeatures relies on in transformers.js, pinned on the real tiny.en (when
 * installed, `npm run test-models`): an AutomaticSpeechRecognitionPipeline built by its public
 * constructor over a loaded model and tokenizer transcribes through the processor it is given,
 * reading of it only its call and `feature_extractor.config`, and answers as the pipeline
 * `pipeline()` made.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutomaticSpeechRecognitionPipeline, pipeline } from '@huggingface/transformers';
import { expect } from 'chai';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { type WhisperProcessor, withFastWhisperFeatures } from '../../../src/inference/speech-to-text/features/fast-features.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

const MODELS_DIR = join(REPO_ROOT, 'models');

type Asr = ((audio: Float32Array, options?: Record<string, unknown>) => Promise<{ text: string; chunks?: unknown[] }>) & {
  model: { config: unknown; sessions: Record<string, unknown> };
  tokenizer: unknown;
  processor: WhisperProcessor;
  dispose(): Promise<void>;
};

describe('fast Whisper features in the transformers.js pipeline, whisper-tiny.en (real weights)', () => {
  let stock: Asr;
  let audio: Float32Array;
  before(async function () {
    this.timeout(120_000);
    if (!existsSync(join(MODELS_DIR, 'whisper-tiny.en', '.installed.json'))) this.skip(); // `npm run test-models`
    configureRuntime({ modelsDir: MODELS_DIR });
    stock = (await pipeline('automatic-speech-recognition', 'whisper-tiny.en', { dtype: 'fp32', device: 'cpu' })) as unknown as Asr;
    // "And so my fellow Americans": six decodes of the whole clip would cost 10 CPU-s for nothing more.
    audio = (await decodeAudio(readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), { sampleRate: 16000, maxSeconds: 60 })).samples.slice(0, 16000 * 4);
  });
  after(async () => stock?.dispose());

  it('transcribes through the processor it is given, to the same text and timestamps', async function () {
    this.timeout(300_000);
    const fast = withFastWhisperFeatures(stock);
    expect(fast).to.not.equal(stock);
    expect(fast.model).to.equal(stock.model);
    let calls = 0;
    // A processor offering only its call and `feature_extractor.config`: anything else the pipeline read would be missing.
    const counted = Object.assign(
      async (pcm: Float32Array) => {
        calls++;
        return fast.processor(pcm);
      },
      { feature_extractor: { config: fast.processor.feature_extractor.config } },
    );
    const viaSpy = new AutomaticSpeechRecognitionPipeline({
      task: 'automatic-speech-recognition',
      model: fast.model,
      tokenizer: fast.tokenizer,
      processor: counted,
    } as never) as unknown as Asr;
    for (const options of [{}, { return_timestamps: true }]) {
      const expected = await stock(audio, options);
      expect(await fast(audio, options), JSON.stringify(options)).to.deep.equal(expected);
      expect(await viaSpy(audio, options), JSON.stringify(options)).to.deep.equal(expected);
    }
    expect(calls).to.equal(2);
  });
});
