/**
 * q8's joined self-attention steps (graph/self-attention-steps.ts, `joined`) on the real
 * whisper-tiny.en (skipped when not installed: `npm run test-models`): the rewritten q8 decoder
 * with its step outputs decodes to the very tokens and log probabilities it gives without them
 * (its presents fetched whole): greedy after a prompt of several runs, beam search and best-of
 * sampling (their start shared by every row), and several windows' searches stepping together.
 * Its quantizers read bit-identical inputs, so not even rounding may differ. In the slow suite
 * (about 9 CPU-s of decoding); npm test checks the same identity on the graph's outputs
 * (self-attention-steps.test.ts).
 */
import { join } from 'node:path';
import { pipeline, type Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import { configureRuntime } from '../../../src/inference/runtime.js';
import type { SearchOptions } from '../../../src/inference/speech-to-text/decoding/whisper-search-decode.js';
import { seededRandom } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';
import type { WindowDecodeRequest } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import { RewrittenDecoder, type RewrittenSession } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline, type TinyEnWindowDecoder } from './tiny-en-window-decoder.js';

const TINY_EN = join(REPO_ROOT, 'models', 'whisper-tiny.en');

describe('q8 joined self-attention steps, whisper-tiny.en (real weights)', function () {
  this.timeout(300_000);
  let tiny: TinyEnWindowDecoder;
  let q8: TinyEnPipeline;
  let stepped: RewrittenSession;
  let whole: RewrittenSession;
  let audio: Tensor[];
  let prompt: number[];
  const signal = new AbortController().signal;
  const request = (audioFeatures: Tensor, search?: SearchOptions, temperature = 0, withPrompt = false): WindowDecodeRequest => ({
    audioFeatures,
    prompt: withPrompt ? prompt : [],
    startTokens: tiny.startTokens,
    temperature,
    maxTokens: 224,
    maxInitialTimestampIndex: 50,
    signal,
    ...(search ? { search } : {}),
    ...(temperature > 0 ? { random: seededRandom(7) } : {}),
  });

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    tiny = await loadTinyEnWindowDecoder();
    configureRuntime({ modelsDir: join(REPO_ROOT, 'models') });
    const options = { intraOpNumThreads: 1 };
    q8 = (await pipeline('automatic-speech-recognition', 'whisper-tiny.en', {
      dtype: 'q8',
      device: 'cpu',
      session_options: options,
    })) as unknown as TinyEnPipeline;
    stepped = (await RewrittenDecoder.of(TINY_EN, 'q8', options)!.open())!;
    whole = (await RewrittenDecoder.of(TINY_EN, 'q8', options, { selfAttentionSteps: false })!.open())!;
    const clips = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 2));
    const encoder = new WhisperWindowDecoder(q8.model, tiny.tokens);
    audio = [];
    for (const clip of clips) audio.push(await encoder.encode((await q8.processor(clip.samples)).input_features));
    // Longer than one chunk of 32 tokens: read in several runs, the later ones after a past.
    prompt = q8.tokenizer.encode(' And so my fellow Americans, ask not what your country can do for you. '.repeat(3), { add_special_tokens: false });
  });
  after(async () => {
    await stepped?.release();
    await whole?.release();
    await q8?.dispose();
    await tiny?.asr.dispose();
  });

  it('returns step outputs and takes shared positions, where the other returns its presents', () => {
    expect(stepped.quantizesPerRun).to.equal(true);
    expect(stepped.outputNames.filter((name) => name.startsWith('step.'))).to.have.length(8);
    expect(stepped.inputNames.filter((name) => name.startsWith('shared.'))).to.have.length(8);
    expect(whole.outputNames.filter((name) => name.startsWith('step.'))).to.deep.equal([]);
  });

  it('greedy, beam search and best-of: the same tokens and log probabilities with and without the steps', async () => {
    const decoders = [stepped, whole].map((decoder) => new WhisperWindowDecoder(q8.model, tiny.tokens, { decoder }));
    for (const [search, temperature, withPrompt] of [
      [undefined, 0, true],
      [{ beamSize: 5 }, 0, false],
      [{ beamSize: 5 }, 0, true],
      [{ bestOf: 5 }, 0.4, false],
    ] as const) {
      const results = [];
      for (const decoder of decoders) results.push(await decoder.decode(request(audio[0]!, search, temperature, withPrompt)));
      expect(results[0]!.tokens.length, JSON.stringify(search)).to.be.above(5);
      expect(results[0], JSON.stringify({ search, withPrompt })).to.deep.equal(results[1]);
    }
  });

  it("several windows' searches stepping together: the same tokens and log probabilities with and without the steps", async () => {
    const requests = audio.flatMap((features) => [request(features, { beamSize: 5 }), request(features, { bestOf: 3 }, 0.6)]);
    const results = [];
    for (const decoder of [stepped, whole]) {
      const batch = new WhisperWindowDecoder(q8.model, tiny.tokens, { decoder, fitsSearchBatch: () => true });
      results.push(await batch.decodeBatch(requests.map((one) => ({ ...one, ...(one.temperature > 0 ? { random: seededRandom(7) } : {}) }))));
    }
    expect(results[0]).to.deep.equal(results[1]);
  });
});
