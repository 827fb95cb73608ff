/**
 * The rewritten decoder behind optimum's names (decoder/pipeline-decoder-session.ts): on the real
 * whisper-tiny.en (skipped when not installed: `npm run test-models`) transformers.js's pipeline
 * over it, the model's own decoder released, transcribes as the loaded pipeline did, and the
 * window decoder on the rewritten session decodes a window as on the model's, fp32 and q8 (q8 to the
 * same log probabilities, its self-attention steps joined and its prompt read in runs of its own).
 */
import { join } from 'node:path';
import { pipeline } from '@huggingface/transformers';
import { expect } from 'chai';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { pipelineDecoderSession, withRewrittenDecoder } from '../../../src/inference/speech-to-text/decoder/pipeline-decoder-session.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import { RewrittenDecoder, type RewrittenSession } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline, type TinyEnWindowDecoder } from './tiny-en-window-decoder.js';

describe('the rewritten decoder behind the pipeline, whisper-tiny.en (real weights)', function () {
  this.timeout(120_000);
  let tiny: TinyEnWindowDecoder;
  let rewritten: RewrittenSession;
  let moved: TinyEnPipeline | undefined;
  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    tiny = await loadTinyEnWindowDecoder();
    rewritten = (await RewrittenDecoder.of(join(REPO_ROOT, 'models', 'whisper-tiny.en'), 'fp32', { intraOpNumThreads: 1 })!.open())!;
  });
  // The moved pipeline holds the rewritten session: disposing it releases that.
  after(() => (moved ?? tiny?.asr)?.dispose());

  it("takes optimum's inputs and gives presents, none of the rewrite's names", () => {
    const session = pipelineDecoderSession(rewritten);
    expect(session.inputNames).to.not.include('logits_from');
    expect(session.inputNames.filter((name) => name.startsWith('shared.'))).to.deep.equal([]);
    expect(session.inputMetadata.map(({ name }) => name)).to.deep.equal(session.inputNames);
    expect(session.outputNames).to.include('present.0.decoder.key');
    expect(session.outputNames.filter((name) => name.startsWith('step.'))).to.deep.equal([]);
  });

  it('transcribes as the loaded pipeline did, and the window decoder decodes as on the model decoder', async () => {
    // One clip, with and without timestamps: each pipeline call costs a whole 30-s encoder pass.
    const clips = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 1));
    const transcribe = (asr: TinyEnPipeline, samples: Float32Array, timestamps: boolean) =>
      (asr as unknown as (audio: Float32Array, options: object) => Promise<unknown>)(samples, { return_timestamps: timestamps });
    const answers = [];
    for (const clip of clips) answers.push(await transcribe(tiny.asr, clip.samples, true), await transcribe(tiny.asr, clip.samples, false));
    const features = await tiny.decoder.encode((await tiny.asr.processor(clips[0]!.samples)).input_features);
    const request = {
      audioFeatures: features,
      prompt: [],
      startTokens: tiny.startTokens,
      temperature: 0,
      maxTokens: 224,
      maxInitialTimestampIndex: 50,
      signal: new AbortController().signal,
    };
    const own = await tiny.decoder.decode(request);
    moved = await withRewrittenDecoder(tiny.asr, rewritten);
    const again = [];
    for (const clip of clips) again.push(await transcribe(moved, clip.samples, true), await transcribe(moved, clip.samples, false));
    expect(again).to.deep.equal(answers);
    const stepped = await new WhisperWindowDecoder(moved.model, tiny.tokens, { decoder: rewritten }).decode(request);
    expect(stepped.tokens).to.deep.equal(own.tokens);
    expect(stepped.avgLogProb).to.be.closeTo(own.avgLogProb, 1e-5);
    expect(stepped.noSpeechProb).to.be.closeTo(own.noSpeechProb, 1e-5);
  });

  it('q8: the rewritten decoder decodes a prompted window to the same tokens and log probabilities as the model decoder', async () => {
    configureRuntime({ modelsDir: join(REPO_ROOT, 'models') });
    const options = { intraOpNumThreads: 1 };
    const q8 = (await pipeline('automatic-speech-recognition', 'whisper-tiny.en', {
      dtype: 'q8',
      device: 'cpu',
      session_options: options,
    })) as unknown as TinyEnPipeline;
    const session = (await RewrittenDecoder.of(join(REPO_ROOT, 'models', 'whisper-tiny.en'), 'q8', options)!.open())!;
    try {
      expect(session.quantizesPerRun).to.equal(true);
      const [clip] = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 1));
      const own = new WhisperWindowDecoder(q8.model, tiny.tokens);
      const rewrittenDecoder = new WhisperWindowDecoder(q8.model, tiny.tokens, { decoder: session });
      const features = await own.encode((await q8.processor(clip!.samples)).input_features);
      // A prompt longer than one chunk (32 tokens): read in runs of its own on both.
      const prompt = q8.tokenizer.encode(
        ' And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country. '.repeat(2),
        { add_special_tokens: false },
      );
      const request = {
        audioFeatures: features,
        prompt,
        startTokens: tiny.startTokens,
        temperature: 0,
        maxTokens: 224,
        maxInitialTimestampIndex: 50,
        signal: new AbortController().signal,
      };
      expect(await rewrittenDecoder.decode(request)).to.deep.equal(await own.decode(request));
    } finally {
      await session.release();
      await q8.dispose();
    }
  });
});
