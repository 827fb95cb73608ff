/**
 * Several windows' beam searches (and best-of samples) stepping together in one decoder run, on
 * the real Whisper tiny.en (skipped when not installed: `npm run test-models`): every window gets
 * the tokens its search gives alone, a run never holds more rows than its bound allows, and one
 * window's abort stops the batch.
 */
import { join } from 'node:path';
import type { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import type { SearchOptions } from '../../../src/inference/speech-to-text/decoding/whisper-search-decode.js';
import { RewrittenDecoder, type RewrittenSession } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import { seededRandom } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnWindowDecoder } from './tiny-en-window-decoder.js';

describe('beam searches of several windows batched, whisper-tiny.en (real weights)', function () {
  this.timeout(600_000);
  let tiny: TinyEnWindowDecoder;
  let audio: Tensor[];
  let rewritten: RewrittenSession;
  /** Lone searches on the same session (the rewritten decoder, its cross-attention grouped). */
  let loneDecoder: WhisperWindowDecoder;
  const signal = new AbortController().signal;
  const request = (audioFeatures: Tensor, search: SearchOptions, temperature = 0): WindowDecodeRequest => ({
    audioFeatures,
    prompt: [],
    startTokens: tiny.startTokens,
    temperature,
    maxTokens: 224,
    maxInitialTimestampIndex: 50,
    signal,
    search,
  });
  /** A decoder whose session (the rewritten one) records every run's rows. */
  const recording = (maxRows: number) => {
    const rows: number[] = [];
    const decoder = {
      ...rewritten,
      run: (feeds: Record<string, unknown>, fetches?: readonly string[]) => {
        rows.push((feeds.input_ids as { dims: readonly number[] }).dims[0]!);
        return rewritten.run(feeds, fetches);
      },
    };
    return {
      decoder: new WhisperWindowDecoder(tiny.asr.model, tiny.tokens, { decoder, fitsSearchBatch: (windows, perWindow) => windows * perWindow <= maxRows }),
      rows,
    };
  };
  const expectSame = (batched: readonly WindowDecodeResult[], alone: readonly WindowDecodeResult[]) => {
    batched.forEach((result, index) => {
      expect(result.tokens, `window ${index}`).to.deep.equal(alone[index]!.tokens);
      expect(result.tokenLogProbs).to.have.length(result.tokens.length);
      expect(result.avgLogProb, `window ${index}`).to.be.closeTo(alone[index]!.avgLogProb, 1e-3);
      expect(result.noSpeechProb, `window ${index}`).to.be.closeTo(alone[index]!.noSpeechProb, 1e-4);
    });
  };

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    tiny = await loadTinyEnWindowDecoder();
    rewritten = (await RewrittenDecoder.of(join(REPO_ROOT, 'models', 'whisper-tiny.en'), 'fp32', { intraOpNumThreads: 1 })!.open())!;
    loneDecoder = new WhisperWindowDecoder(tiny.asr.model, tiny.tokens, { decoder: rewritten });
    // Clips of different lengths: the windows' searches end at different steps.
    const clips = (await decodeClipsOnce(await readSpeechClips(SPEECH_DIR))).filter((clip) => clip.samples.length <= 30 * 16_000).slice(0, 5);
    audio = [];
    for (const clip of clips) audio.push(await tiny.decoder.encode((await tiny.asr.processor(clip.samples)).input_features));
  });
  after(async () => {
    await rewritten?.release();
    await tiny?.asr.dispose();
  });

  it('gives each window the beams it gets alone, token for token, several windows to a run', async () => {
    const requests = audio.map((features) => request(features, { beamSize: 5 }));
    const alone: WindowDecodeResult[] = [];
    for (const one of requests) alone.push(await loneDecoder.decode(one));
    expect(new Set(alone.map((result) => result.tokens.length)).size).to.be.greaterThan(2); // windows leave at different steps
    expect(rewritten.groupsCrossRows).to.equal(true); // the graph rewrite took
    const { decoder, rows } = recording(25);
    const heard: number[] = [];
    expectSame(await decoder.decodeBatch(requests, (index) => heard.push(index)), alone);
    expect(Math.max(...rows)).to.equal(25); // all five windows' beams in one run
    expect([...heard].sort((a, b) => a - b)).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('keeps a run within its bound: windows beyond it wait for the next batch', async () => {
    const requests = audio.slice(0, 4).map((features) => request(features, { beamSize: 5, patience: 2 }));
    const alone: WindowDecodeResult[] = [];
    for (const one of requests) alone.push(await loneDecoder.decode(one));
    const { decoder, rows } = recording(12);
    expectSame(await decoder.decodeBatch(requests), alone);
    expect(Math.max(...rows)).to.equal(10);
  });

  it('steps best-of samples together too, each window drawing from its own generator', async () => {
    const sampled = (features: Tensor, seed: number) => ({ ...request(features, { bestOf: 5 }, 0.4), maxTokens: 120, random: seededRandom(seed) });
    const alone: WindowDecodeResult[] = [];
    for (const [index, features] of audio.slice(0, 3).entries()) alone.push(await loneDecoder.decode(sampled(features, index + 1)));
    const { decoder } = recording(25);
    expectSame(await decoder.decodeBatch(audio.slice(0, 3).map((features, index) => sampled(features, index + 1))), alone);
  });

  it('stops the whole batch once one window’s signal aborts', async () => {
    const controller = new AbortController();
    let reads = 0;
    const aborting = request(audio[0]!, { beamSize: 5 });
    Object.defineProperty(aborting, 'signal', {
      get: () => {
        if (++reads === 4) controller.abort(new Error('cancelled'));
        return controller.signal;
      },
    });
    const { decoder, rows } = recording(25);
    let failure: unknown;
    await decoder.decodeBatch([aborting, request(audio[1]!, { beamSize: 5 }), request(audio[2]!, { beamSize: 5 })]).catch((error: unknown) => {
      failure = error;
    });
    expect((failure as Error | undefined)?.message).to.equal('cancelled');
    expect(rows.length).to.be.below(10); // the other windows did not search on
  });
});
