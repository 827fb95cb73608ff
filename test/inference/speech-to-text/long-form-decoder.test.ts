/**
 * decodeLongForm's loop over a scripted window decoder: where each window starts, what it is
 * prompted with, when it is decoded again or skipped. (The real model runs in whisper-long-form.slow.test.ts.)
 */
import { expect } from 'chai';
import { Tensor } from '@huggingface/transformers';
import { decodeLongForm, segmentsText, type LongFormModel } from '../../../src/inference/speech-to-text/long-form/long-form-decoder.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';

const TOKENS: WhisperSpecialTokens = { eot: 100, sot: 101, noTimestamps: 102, timestampBegin: 103, suppress: [], beginSuppress: [] };
const TS = (seconds: number) => TOKENS.timestampBegin + Math.round(seconds / 0.02);
const WORDS = ['', ' one', ' two', ' three', ' four', ' five', ' six'];

interface Call {
  windowStart: number;
  prompt: readonly number[];
  temperature: number;
}

/** A model whose window decodes come from `script` in order; each window's first PCM sample holds its start time. */
function scriptedModel(script: WindowDecodeResult[], calls: Call[]): LongFormModel {
  let windowStart = 0;
  return {
    tokens: TOKENS,
    features: async (pcm) => {
      windowStart = pcm[0]!;
      return new Tensor('float32', new Float32Array(1), [1, 1, 1]);
    },
    decoder: {
      encode: async (features) => features,
      decode: async (request: WindowDecodeRequest) => {
        calls.push({ windowStart, prompt: request.prompt, temperature: request.temperature });
        const next = script.shift();
        if (!next) throw new Error('decoded more windows than scripted');
        return next;
      },
    },
    detokenize: (ids) => ids.map((id) => WORDS[id] ?? '?').join(''),
  };
}

/** `seconds` of 16-kHz audio where every sample holds its own time (so a window knows where it starts). */
function clock(seconds: number): Float32Array {
  return Float32Array.from({ length: seconds * 16_000 }, (_, index) => Math.floor(index / 160) / 100);
}

const ok = (tokens: number[]): WindowDecodeResult => ({ tokens, avgLogProb: -0.2, noSpeechProb: 0.01 });

describe('decodeLongForm (scripted windows)', () => {
  it('seeks to the end of the last closed segment and prompts the next window with the text so far', async () => {
    const calls: Call[] = [];
    const model = scriptedModel(
      [
        ok([TS(0), 1, TS(10), TS(10), 2, TS(26), TS(26), 3]), // "three" is cut by the window edge: dropped
        ok([TS(0), 3, TS(8), TS(8), 4, TS(30)]), // decoded again from 26 s, whole; ends on one stamp
        ok([TS(0), 5, TS(4)]), // 56 s → 60 s
      ],
      calls,
    );
    const progress: string[][] = [];
    const segments = await decodeLongForm(clock(60), model, {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      onSegments: (fresh) => progress.push(fresh.map((segment) => segment.text)),
    });
    expect(calls.map((call) => call.windowStart)).to.deep.equal([0, 26, 56]);
    expect(calls[0]!.prompt).to.deep.equal([]);
    expect(calls[1]!.prompt).to.deep.equal([TS(0), 1, TS(10), TS(10), 2, TS(26)]);
    expect(calls[2]!.prompt.slice(-3)).to.deep.equal([TS(8), 4, TS(30)]);
    expect(segments.map(({ start, end, text }) => ({ start, end, text }))).to.deep.equal([
      { start: 0, end: 10, text: ' one' },
      { start: 10, end: 26, text: ' two' },
      { start: 26, end: 34, text: ' three' },
      { start: 34, end: 56, text: ' four' },
      { start: 56, end: 60, text: ' five' },
    ]);
    // openai's per-segment report: the window's seek (mel frames) and stats, the segment's own tokens.
    const { compressionRatio, ...details } = segments[2]!.details;
    expect(details).to.deep.equal({ seek: 2600, tokens: [TS(0), 3, TS(8)], temperature: 0, avgLogprob: -0.2, noSpeechProb: 0.01 });
    expect(compressionRatio).to.be.above(0);
    expect(progress).to.deep.equal([[' one', ' two'], [' three', ' four'], [' five']]);
    expect(segmentsText(segments)).to.equal('one two three four five');
  });

  it('decodes a failed window again at rising temperatures, and drops the prompt after one above 0.5', async () => {
    const calls: Call[] = [];
    const unlikely = { tokens: [TS(0), 6, TS(1)], avgLogProb: -2, noSpeechProb: 0.01 };
    const model = scriptedModel([ok([TS(0), 1, TS(30)]), unlikely, unlikely, unlikely, unlikely, ok([TS(0), 2, TS(30)]), ok([TS(0), 3, TS(5)])], calls);
    const segments = await decodeLongForm(clock(65), model, { startTokens: [TOKENS.sot], signal: new AbortController().signal });
    expect(calls.map((call) => call.temperature)).to.deep.equal([0, 0, 0.2, 0.4, 0.6, 0.8, 0]);
    expect(calls[6]!.prompt, 'reset after the 0.8 decode').to.deep.equal([]);
    expect(segments.map((segment) => segment.text)).to.deep.equal([' one', ' two', ' three']);
  });

  it('keeps the most likely decode that is not a loop when every temperature fails (as faster-whisper), and resets the prompt', async () => {
    const calls: Call[] = [];
    const failed = (tokens: number[], avgLogProb: number): WindowDecodeResult => ({ tokens, avgLogProb, noSpeechProb: 0.01 });
    const loop = failed([TS(0), ...Array<number>(60).fill(1), TS(30)], -1.05);
    const model = scriptedModel(
      [
        failed([TS(0), 3, TS(30)], -1.5),
        loop,
        failed([TS(0), 2, TS(30)], -1.2),
        failed([TS(0), 4, TS(30)], -1.3),
        failed([TS(0), 5, TS(30)], -1.4),
        failed([TS(0), 6, TS(30)], -1.6),
        ok([TS(0), 1, TS(5)]),
      ],
      calls,
    );
    const segments = await decodeLongForm(clock(35), model, { startTokens: [TOKENS.sot], signal: new AbortController().signal });
    expect(calls.map((call) => call.temperature)).to.deep.equal([0, 0.2, 0.4, 0.6, 0.8, 1, 0]);
    expect(segments.map((segment) => segment.text)).to.deep.equal([' two', ' one']);
    expect(calls[6]!.prompt, 'reset: the window ended at temperature 1').to.deep.equal([]);
  });

  it('skips a window the model deems silent (no-speech likely, text unlikely)', async () => {
    const calls: Call[] = [];
    const silent = { tokens: [TS(0), 6, TS(2)], avgLogProb: -1.5, noSpeechProb: 0.9 };
    const model = scriptedModel([silent, ok([TS(0), 2, TS(3)])], calls);
    const segments = await decodeLongForm(clock(45), model, { startTokens: [TOKENS.sot], signal: new AbortController().signal });
    expect(calls.map((call) => [call.windowStart, call.temperature])).to.deep.equal([
      [0, 0],
      [30, 0],
    ]);
    expect(segments.map(({ start, end, text, details }) => ({ start, end, text, seek: details.seek }))).to.deep.equal([
      { start: 30, end: 33, text: ' two', seek: 3000 },
    ]);
  });

  it('stops between windows once its signal aborts', async () => {
    const controller = new AbortController();
    const calls: Call[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(30)])], calls);
    const original = model.decoder.decode;
    model.decoder.decode = async (request) => {
      const result = await original(request);
      controller.abort(new Error('client went away'));
      return result;
    };
    const error = await decodeLongForm(clock(90), model, { startTokens: [TOKENS.sot], signal: controller.signal }).catch((caught: unknown) => caught);
    expect((error as Error).message).to.equal('client went away');
    expect(calls).to.have.length(1);
  });

  it("with words: aligns each window's text, puts words on the audio's timeline and seeks to the last word's end", async () => {
    const calls: Call[] = [];
    const model = scriptedModel(
      [
        ok([TS(0), 1, 2, TS(20), TS(20), 3, TS(28), TS(28)]), // two closed segments; seek would be 28 s without words
        ok([TS(0), 4, TS(5)]),
      ],
      calls,
    );
    // One alignment head whose attention walks the window: each input token's row attends to its
    // own stretch of frames (50 per second); a word ends where the next token's row begins.
    const stretches: Record<number, [number, number][]> = {
      // rows: sot, no-timestamps, " one", " two", " three" (its row begins at 25 s: " three" ends there), eot
      6: [
        [0, 1500],
        [0, 50],
        [50, 75],
        [75, 1250],
        [1250, 1400],
        [0, 1500],
      ],
      // second window: sot, no-timestamps, " four" (from 4 s), eot
      4: [
        [0, 1500],
        [0, 200],
        [200, 300],
        [0, 1500],
      ],
    };
    const aligned: number[][] = [];
    model.aligner = {
      alignmentHeads: [[0, 0]],
      medianFilterWidth: 7,
      decodeRaw: (ids) => ids.map((id) => WORDS[id] ?? '').join(''),
      decoder: {
        crossAttention: async (_features, tokens) => {
          aligned.push([...tokens]);
          const rows = stretches[tokens.length]!;
          const weights = new Float32Array(rows.length * 1500).fill(0.001);
          rows.forEach(([from, to], row) => weights.fill(1, row * 1500 + from, row * 1500 + to));
          return [{ weights, tokens: rows.length, frames: 1500 }];
        },
      },
    };
    const segments = await decodeLongForm(clock(40), model, { startTokens: [TOKENS.sot], signal: new AbortController().signal, words: true });
    // openai's alignment input: start tokens, no-timestamps, the window's text tokens, end of text.
    expect(aligned[0]).to.deep.equal([TOKENS.sot, TOKENS.noTimestamps, 1, 2, 3, TOKENS.eot]);
    // " three" ends at frame 1250 = 25 s: the next window starts there, not at the 28-s stamp.
    expect(calls.map((call) => call.windowStart)).to.deep.equal([0, 25]);
    const words = segments.map((segment) => (segment.words ?? []).map((word) => word.word));
    expect(words).to.deep.equal([[' one', ' two'], [' three'], [' four']]);
    for (const segment of segments) {
      expect(segment.start).to.equal(segment.words![0]!.start);
      expect(segment.end).to.equal(segment.words!.at(-1)!.end);
    }
    expect(segments[1]!.words![0]!.end).to.equal(25);
    // The second window's words are on the audio's timeline: 25 s + 2..4 s.
    expect(segments[2]!.words![0]!.end).to.equal(29);
  });
});
