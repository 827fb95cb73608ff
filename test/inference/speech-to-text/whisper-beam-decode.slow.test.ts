/**
 * Beam search and best-of sampling on the real Whisper tiny.en (skipped when not installed: `npm
 * run test-models`): beam_size=1 is the greedy decode to the byte, beam 5 transcribes the
 * English clips at least as well as greedy, and best-of sampling is reproducible with a seed.
 */
import { join } from 'node:path';
import type { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import { RewrittenDecoder } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import { seededRandom } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import type { WindowDecodeRequest } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import type { SearchOptions } from '../../../src/inference/speech-to-text/decoding/whisper-search-decode.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { normalizeTranscript } from '../../../scripts/eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { corpusWer, wordErrors } from '../../../scripts/eval/lib/wer.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline } from './tiny-en-window-decoder.js';

describe('beam search and best-of on whisper-tiny.en (real weights)', function () {
  this.timeout(600_000);
  let asr: TinyEnPipeline;
  let decoder: WhisperWindowDecoder;
  let tokens: WhisperSpecialTokens;
  let startTokens: number[];
  let audio: Tensor[];
  let references: string[];
  const signal = new AbortController().signal;
  const request = (audioFeatures: Tensor, search?: SearchOptions, temperature = 0): WindowDecodeRequest => ({
    audioFeatures,
    prompt: [],
    startTokens,
    temperature,
    maxTokens: 224,
    maxInitialTimestampIndex: 50,
    signal,
    search,
  });
  const text = (ids: number[]) =>
    asr.tokenizer.decode(
      ids.filter((id) => id < tokens.eot),
      { skip_special_tokens: true },
    );

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    ({ asr, tokens, decoder, startTokens } = await loadTinyEnWindowDecoder());
    // The English clips of one window each (test/fixtures/speech: JFK, LibriVox, goforward, cards, FLEURS).
    const clips = (await decodeClipsOnce(await readSpeechClips(SPEECH_DIR))).filter((clip) => clip.samples.length <= 30 * 16_000);
    audio = [];
    for (const clip of clips) audio.push(await decoder.encode((await asr.processor(clip.samples)).input_features));
    references = clips.map((clip) => clip.reference);
  });
  after(() => asr?.dispose());

  it('beam_size=1 and best_of=1 are the greedy decode, token for token and log probability for log probability', async () => {
    for (const features of audio.slice(0, 3)) {
      const greedy = await decoder.decode(request(features));
      expect(await decoder.decode(request(features, { beamSize: 1, bestOf: 1, patience: 2 }))).to.deep.equal(greedy);
    }
  });

  it('beam 5 transcribes the English clips at least as well as greedy (WER over all of them)', async () => {
    const greedy = [];
    const beam = [];
    for (const [index, features] of audio.entries()) {
      const reference = normalizeTranscript(references[index]!);
      greedy.push(wordErrors(reference, normalizeTranscript(text((await decoder.decode(request(features))).tokens))));
      const result = await decoder.decode(request(features, { beamSize: 5 }));
      beam.push(wordErrors(reference, normalizeTranscript(text(result.tokens))));
      expect(result.tokenLogProbs).to.have.length(result.tokens.length);
      expect(result.avgLogProb).to.be.closeTo(result.tokenLogProbs!.reduce((a, b) => a + b, 0) / (result.tokens.length + 1), 0.5);
    }
    const [greedyWer, beamWer] = [corpusWer(greedy), corpusWer(beam)];
    console.log(`      ${audio.length} clips: WER greedy ${greedyWer.toFixed(4)}, beam 5 ${beamWer.toFixed(4)}`);
    expect(beamWer).to.be.at.most(greedyWer);
  });

  it('a beam search keeps the timestamp rules: a timestamp first, in pairs, never going back', async () => {
    const { tokens: sampled } = await decoder.decode(request(audio[0]!, { beamSize: 5, patience: 2 }));
    expect(sampled[0]).to.be.at.least(tokens.timestampBegin);
    const stamps = sampled.filter((id) => id >= tokens.timestampBegin);
    expect(stamps.length % 2).to.equal(0);
    expect(stamps).to.deep.equal([...stamps].sort((a, b) => a - b));
  });

  it('a decoder whose graph does not broadcast the cross-attention rows decodes the same, with them repeated from the first step', async () => {
    // Told at load that the graph does not broadcast (graph/cross-rows-support.ts), the search never
    // hands it one row of audio and cross-attention cache for many, as a graph that reshapes by the batch size would refuse.
    const session = asr.model.sessions.decoder_model_merged!;
    let refused = 0;
    const strict = {
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      run: (feeds: Record<string, { dims: readonly number[] }>, fetches?: readonly string[]) => {
        const cross = feeds['past_key_values.0.encoder.key'];
        if (cross && cross.dims[0] !== feeds.input_ids!.dims[0]) {
          refused++;
          return Promise.reject(new Error('batch sizes differ'));
        }
        return session.run(feeds, fetches);
      },
    };
    const repeating = new WhisperWindowDecoder({ ...asr.model, sessions: { ...asr.model.sessions, decoder_model_merged: strict } }, tokens, {
      decoderBroadcastsCrossRows: false,
    });
    for (const features of audio.slice(0, 2)) {
      expect(await repeating.decode(request(features, { beamSize: 5 }))).to.deep.equal(await decoder.decode(request(features, { beamSize: 5 })));
    }
    expect(refused).to.equal(0); // decided at load, never learnt from a failed run
  });

  it('the rewritten decoder gives the same beams, the same batch of windows and the same greedy row', async () => {
    const rewritten = (await RewrittenDecoder.of(join(REPO_ROOT, 'models', 'whisper-tiny.en'), 'fp32', { intraOpNumThreads: 1 })!.open())!;
    try {
      const packed = new WhisperWindowDecoder(asr.model, tokens, { decoder: rewritten });
      for (const features of audio.slice(0, 2)) {
        // Its cross-attention grouped by window takes the beams in one product, not one each:
        // the same tokens, log probabilities equal but for float rounding.
        const [grouped, plain] = [await packed.decode(request(features, { beamSize: 5 })), await decoder.decode(request(features, { beamSize: 5 }))];
        expect(grouped.tokens).to.deep.equal(plain.tokens);
        expect(grouped.avgLogProb).to.be.closeTo(plain.avgLogProb, 1e-5);
        grouped.tokenLogProbs!.forEach((logProb, index) => expect(logProb).to.be.closeTo(plain.tokenLogProbs![index]!, 1e-4));
      }
      const windows = () => audio.slice(0, 3).map((features) => request(features));
      const [packedBatch, plainBatch] = [await packed.decodeBatch(windows()), await decoder.decodeBatch(windows())];
      // Its self-attention sums past and new positions apart (self-attention-steps.ts): rounding again.
      packedBatch.forEach((result, index) => {
        expect(result.tokens).to.deep.equal(plainBatch[index]!.tokens);
        expect(result.avgLogProb).to.be.closeTo(plainBatch[index]!.avgLogProb, 1e-5);
      });
      // Its cache is kept on our side, appended from the positions each run read: a prompt read in
      // several chunks, and best-of samples leaving the group, give the same tokens as the model's own decoder.
      expect(rewritten.outputNames).to.include('step.0.decoder.key');
      expect(rewritten.inputNames).to.include('logits_from'); // a prompt read without the output projection
      const prompt = asr.tokenizer.encode(`${references.join(' ')}`, { add_special_tokens: false }).slice(0, 100);
      const prompted = { ...request(audio[2]!, { beamSize: 5 }), prompt };
      const [steppedPrompted, plainPrompted] = [await packed.decode(prompted), await decoder.decode(prompted)];
      expect(steppedPrompted.tokens).to.deep.equal(plainPrompted.tokens);
      const sampled = () => ({ ...request(audio[1]!, { bestOf: 5 }, 0.5), prompt: prompt.slice(0, 40), random: seededRandom(7) });
      expect((await packed.decode(sampled())).tokens).to.deep.equal((await decoder.decode(sampled())).tokens);
      // One row, greedy, with and without a prompt: the same tokens.
      for (const greedy of [request(audio[0]!), { ...request(audio[2]!), prompt }]) {
        const [stepped, plain] = [await packed.decode(greedy), await decoder.decode(greedy)];
        expect(stepped.tokens).to.deep.equal(plain.tokens);
        expect(stepped.avgLogProb).to.be.closeTo(plain.avgLogProb, 1e-5);
      }
    } finally {
      await rewritten.release();
    }
  });

  it('best_of samples at the temperature, the same text for the same seed; decodeBatch decodes such a window alone', async () => {
    const sampled = (seed: number) => ({ ...request(audio[1]!, { bestOf: 5 }, 0.3), maxTokens: 120, random: seededRandom(seed) });
    const first = await decoder.decode(sampled(1));
    expect(await decoder.decode(sampled(1))).to.deep.equal(first);
    expect(text(first.tokens).trim().length).to.be.above(0);
    const [batched, plain] = await decoder.decodeBatch([sampled(1), request(audio[2]!)]);
    expect(batched).to.deep.equal(first);
    expect(plain).to.deep.equal(await decoder.decode(request(audio[2]!)));
  });
});
