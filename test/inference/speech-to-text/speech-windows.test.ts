/**
 * VAD regions as independent windows: how regions are merged and cut, what a window's audio
 * reads as, how its times come back to the original timeline, and decodeWindows over a scripted
 * window decoder. (The real model runs in test/http/transcriptions-vad-windows.test.ts.)
 */
import { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import fc from 'fast-check';
import { floatReader } from '../../../src/audio/pcm16-buffer.js';
import { decodeWindows, onOriginalTimeline, uncoveredGaps, uncoveredRest } from '../../../src/inference/speech-to-text/long-form/decode-windows.js';
import type { DecodedSegment, LongFormModel } from '../../../src/inference/speech-to-text/long-form/long-form-decoder.js';
import {
  type GainedRegion,
  leadingSpeech,
  mergeRegions,
  originalTime,
  type SpeechWindow,
  splitLongRegion,
  WINDOW_SAMPLES,
  windowReader,
} from '../../../src/inference/speech-to-text/vad/speech-windows.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

const RATE = 16_000;
const s = (seconds: number) => seconds * RATE;
const region = (from: number, to: number, gain = 1): GainedRegion => ({ start: s(from), end: s(to), gain });

/** Ascending, non-overlapping regions with gaps ≥ 1 sample; lengths up to 70 s so some need cutting. */
const regionsArbitrary = fc
  .array(fc.record({ gap: fc.integer({ min: 1, max: s(20) }), length: fc.integer({ min: 1, max: s(70) }) }), { minLength: 1, maxLength: 12 })
  .map((pieces) => {
    let at = 0;
    return pieces.map(({ gap, length }) => {
      const start = at + gap;
      at = start + length;
      return { start, end: at, gain: 1 };
    });
  });

describe('speech windows', () => {
  it('merges regions into windows of at most 30 s, breaking only between regions (as WhisperX)', () => {
    const windows = mergeRegions([region(1, 5), region(9, 20), region(24, 32), region(40, 41), region(75, 80)]);
    expect(windows.map(({ start, end, regions }) => [start / RATE, end / RATE, regions.length])).to.deep.equal([
      [1, 20, 2],
      [24, 41, 2],
      [75, 80, 1],
    ]);
  });

  it('keeps every sample of every region exactly once, in order, in windows of at most 30 s that start and end on speech', () => {
    fc.assert(
      fc.property(regionsArbitrary, (regions) => {
        const windows = mergeRegions(regions);
        const pieces = windows.flatMap((window) => window.regions);
        // The pieces cover the regions exactly: joined where a long region was cut, they are the regions.
        const rejoined: GainedRegion[] = [];
        for (const piece of pieces) {
          const last = rejoined.at(-1);
          if (last && last.end === piece.start) last.end = piece.end;
          else rejoined.push({ ...piece });
        }
        expect(rejoined).to.deep.equal(regions);
        let previousEnd = -1;
        for (const window of windows) {
          expect(window.end - window.start).to.be.at.most(WINDOW_SAMPLES);
          expect(window.start).to.be.greaterThan(previousEnd - 1);
          expect(window.start).to.equal(window.regions[0]!.start);
          expect(window.end).to.equal(window.regions.at(-1)!.end);
          previousEnd = window.end;
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('cuts a region longer than a window at its quietest 100 ms in the last third', () => {
    // 70 s of a loud tone with a silent 200 ms at 25 s and at 50 s.
    const pcm = Float32Array.from({ length: s(70) }, (_, i) => (Math.abs(i - s(25.1)) < s(0.1) || Math.abs(i - s(50.1)) < s(0.1) ? 0 : 0.3 * Math.sin(i / 5)));
    const pieces = splitLongRegion(region(0, 70), WINDOW_SAMPLES, floatReader(pcm));
    expect(pieces.map((piece) => Math.round(piece.start / RATE))).to.deep.equal([0, 25, 50]);
    expect(Math.abs(pieces[1]!.start - s(25.1))).to.be.below(s(0.06));
    expect(pieces.at(-1)!.end).to.equal(s(70));
    // Without audio to measure, at the limit.
    expect(splitLongRegion(region(0, 70), WINDOW_SAMPLES).map((piece) => piece.start / RATE)).to.deep.equal([0, 30, 60]);
  });

  it("reads a window's regions at their gains and the audio between them as silence", () => {
    const pcm = new Float32Array(s(10)).fill(0.01);
    const reader = windowReader(floatReader(pcm), { start: s(2), end: s(8), regions: [region(2, 3, 10), region(6, 8)] });
    const audio = reader.read(0, reader.length);
    expect(audio.length).to.equal(s(6));
    expect(audio[0]).to.be.closeTo(0.1, 1e-6);
    expect(audio[s(2)]).to.equal(0);
    expect(audio[s(5)]).to.be.closeTo(0.01, 1e-6);
    expect(Array.from(reader.read(s(1) - 2, s(1) + 2)).map((x) => Math.round(x * 100) / 100)).to.deep.equal([0.1, 0.1, 0, 0]);
    // Language identification hears the speech joined: 1 s at ×10, then 2 s.
    const speech = leadingSpeech(floatReader(pcm), [{ start: s(2), end: s(8), regions: [region(2, 3, 10), region(6, 8)] }]);
    expect(speech.length).to.equal(s(3));
  });

  it("puts a window's times on the original timeline, keeping starts and ends on speech", () => {
    const window: SpeechWindow = { start: s(10), end: s(30), regions: [region(10, 14), region(20, 30)] };
    expect(originalTime(window, 1.5, RATE, 'start')).to.equal(11.5);
    expect(originalTime(window, 12, RATE, 'end')).to.equal(22);
    // In the silence between the regions: a start moves to the next region, an end to the previous.
    expect(originalTime(window, 6, RATE, 'start')).to.equal(20);
    expect(originalTime(window, 6, RATE, 'end')).to.equal(14);
    // Past the window (the last window is padded): its last speech.
    expect(originalTime(window, 29.9, RATE, 'end')).to.equal(30);
    fc.assert(
      fc.property(regionsArbitrary, fc.double({ min: 0, max: 40, noNaN: true }), fc.constantFrom('start' as const, 'end' as const), (regions, t, edge) => {
        for (const w of mergeRegions(regions)) {
          const time = originalTime(w, t, RATE, edge);
          const inside = w.regions.some((r) => time >= r.start / RATE - 0.0006 && time <= r.end / RATE + 0.0006);
          expect(inside, `${time} on speech`).to.equal(true);
          const exact = w.start / RATE + t;
          if (w.regions.some((r) => exact >= r.start / RATE && exact <= r.end / RATE)) expect(time).to.be.closeTo(exact, 0.00051);
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('moves segments and their words alike', () => {
    const window: SpeechWindow = { start: s(60), end: s(80), regions: [region(60, 65), region(70, 80)] };
    const segment: DecodedSegment = {
      start: 0.5,
      end: 12,
      text: ' hi there',
      details: { seek: 0, tokens: [], temperature: 0, avgLogprob: 0, compressionRatio: 1, noSpeechProb: 0 },
      words: [
        { word: ' hi', start: 0.5, end: 1 },
        { word: ' there', start: 7, end: 12 },
      ],
    };
    const moved = onOriginalTimeline(segment, window, RATE);
    expect([moved.start, moved.end]).to.deep.equal([60.5, 72]);
    expect(moved.words).to.deep.equal([
      { word: ' hi', start: 60.5, end: 61 },
      { word: ' there', start: 70, end: 72 },
    ]);
  });
});

const TOKENS: WhisperSpecialTokens = { eot: 100, sot: 101, noTimestamps: 102, timestampBegin: 103, suppress: [], beginSuppress: [] };
const TS = (seconds: number) => TOKENS.timestampBegin + Math.round(seconds / 0.02);
const WORDS = ['', ' one', ' two', ' three', ' four', ' five'];

/** A model whose window decodes come from `script`; each window's first sample holds its original time. */
function scriptedModel(script: WindowDecodeResult[], calls: Array<{ at: number; prompt: readonly number[] }>): LongFormModel {
  let at = 0;
  return {
    tokens: TOKENS,
    features: async (pcm) => {
      at = Math.round(pcm[0]! * 100) / 100;
      return new Tensor('float32', new Float32Array(1), [1, 1, 1]);
    },
    decoder: {
      encode: async (features) => features,
      decode: async (request: WindowDecodeRequest) => {
        calls.push({ at, prompt: request.prompt });
        const next = script.shift();
        if (!next) throw new Error('decoded more windows than scripted');
        return next;
      },
    },
    detokenize: (ids) => ids.map((id) => WORDS[id] ?? '?').join(''),
  };
}

const ok = (tokens: number[]): WindowDecodeResult => ({ tokens, avgLogProb: -0.2, noSpeechProb: 0.01 });

describe('decodeWindows (scripted windows)', () => {
  /** 100 s where every sample holds its own time / 100 (so a window knows where it starts). */
  const clock = floatReader(Float32Array.from({ length: s(100) }, (_, i) => Math.floor(i / 160) / 10_000));
  const windows = mergeRegions([region(5, 15), region(40, 60), region(80, 86)]);

  it('decodes each window on its own, goes on with the rest of a window that stopped early, and reports in order on the original timeline', async () => {
    const calls: Array<{ at: number; prompt: readonly number[] }> = [];
    const model = scriptedModel(
      [
        ok([TS(0), 1, TS(4), TS(4), 2, TS(9), TS(9)]), // 5–15 s: two segments, the last closed at 9 s → the last 1 s is decoded again
        ok([]), // …and holds nothing
        ok([TS(0), 3, TS(8), TS(8), 4]), // 40–60 s: "four" is left open at 8 s…
        ok([TS(0), 4, TS(12)]), // …so the rest, 48–60 s, is decoded in this window: a glued stream would seek into the next region
        ok([TS(1), 5, TS(5)]), // 80–86 s
      ],
      calls,
    );
    const reported: Array<[number, number, string]> = [];
    const segments = await decodeWindows(clock, windows, model, {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      onSegments: (fresh) => reported.push(...fresh.map((segment): [number, number, string] => [segment.start, segment.end, segment.text])),
    });
    expect(calls.map((call) => Math.round(call.at * 100))).to.deep.equal([5, 14, 40, 48, 80]);
    // No window is prompted with another's text.
    expect(calls[2]!.prompt).to.deep.equal([]);
    expect(calls[4]!.prompt).to.deep.equal([]);
    const timed = segments.map((segment): [number, number, string] => [segment.start, segment.end, segment.text]);
    expect(timed).to.deep.equal([
      [5, 9, ' one'],
      [9, 14, ' two'],
      [40, 48, ' three'],
      [48, 60, ' four'],
      [80, 85, ' five'],
    ]);
    expect(reported).to.deep.equal(timed);
  });

  it('decodes a window again from the first region its decode ended before', async () => {
    const calls: Array<{ at: number; prompt: readonly number[] }> = [];
    const model = scriptedModel(
      [
        ok([TS(0), 1, TS(4)]), // 0–25 s: one segment, then end of text (a single timestamp ending: "done")
        ok([TS(0), 2, TS(3)]), // from the region at 10 s: it covers 10–13 s
        ok([TS(0), 3, TS(4)]), // from the region at 20 s
      ],
      calls,
    );
    const window = mergeRegions([region(0, 5), region(10, 14), region(20, 25)]);
    expect(window).to.have.length(1);
    const segments = await decodeWindows(clock, window, model, { startTokens: [TOKENS.sot], signal: new AbortController().signal });
    expect(calls.map((call) => Math.round(call.at * 100))).to.deep.equal([0, 10, 20]);
    expect(segments.map((segment) => [segment.start, segment.end, segment.text])).to.deep.equal([
      [0, 4, ' one'],
      [10, 13, ' two'],
      [20, 24, ' three'],
    ]);
    const [w] = window as [SpeechWindow];
    // Ended in a pause: from the next region. A trailing pad (< 1 s) left: done.
    expect(uncoveredRest(w, { start: 0, end: 7 }, RATE)?.start).to.equal(s(10));
    expect(uncoveredRest(w, { start: 20, end: 24.5 }, RATE)).to.equal(undefined);
    // Ended inside a region: from there, or from the region's start when the segment began in an earlier region.
    expect(uncoveredRest(w, { start: 10, end: 12 }, RATE)?.regions.map(({ start, end }) => [start / RATE, end / RATE])).to.deep.equal([
      [12, 14],
      [20, 25],
    ]);
    expect(uncoveredRest(w, { start: 3, end: 12 }, RATE)?.start).to.equal(s(10));
    // A start stamp in the pause just before its own region (Whisper's 20-ms steps) began in no earlier
    // region: the rest is from the end, not the region again (which decoded its sentence twice).
    expect(uncoveredRest(w, { start: 9.98, end: 12 }, RATE)?.start).to.equal(s(12));
    expect(uncoveredRest(w, { start: 5.5, end: 12 }, RATE)?.start).to.equal(s(12));
    // Nothing decoded: from the second region.
    expect(uncoveredRest(w, undefined, RATE)?.start).to.equal(s(10));
  });

  it('decodes speech its decode passed over on its own, and reports every segment in time order', async () => {
    const calls: Array<{ at: number; prompt: readonly number[] }> = [];
    const model = scriptedModel(
      [
        ok([TS(0), 1, TS(4), TS(20), 3, TS(24)]), // 0–25 s: "one", then "three" at 20 s: the region at 10 s is passed over
        ok([TS(0), 2, TS(3)]), // that region alone
      ],
      calls,
    );
    const window = mergeRegions([region(0, 5), region(10, 14), region(20, 25)]);
    const reported: string[][] = [];
    const segments = await decodeWindows(clock, window, model, {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      onSegments: (fresh) => reported.push(fresh.map((segment) => segment.text)),
    });
    expect(calls.map((call) => Math.round(call.at * 100))).to.deep.equal([0, 10]);
    expect(segments.map((segment) => [segment.start, segment.end, segment.text])).to.deep.equal([
      [0, 4, ' one'],
      [10, 13, ' two'],
      [20, 24, ' three'],
    ]);
    // "three" waits for the region before it.
    expect(reported).to.deep.equal([[' one'], [' two', ' three']]);
    const [w] = window as [SpeechWindow];
    /** The gaps' regions (seconds) left by segments [start, end] (seconds from the window's start). */
    const gaps = (...segments: Array<[number, number]>) =>
      uncoveredGaps(
        w,
        segments.map(([start, end]) => ({ start, end })),
        RATE,
      ).map((part) => part.regions.map(({ start, end }) => [start / RATE, end / RATE]));
    // Covered up to the next segment, or less than 1.5 s of speech left between: nothing.
    expect(gaps([0, 12.6], [20, 24])).to.deep.equal([]);
    // A gap's speech, from the end of the segment before: inside a region too (Whisper can pass over a sentence).
    expect(gaps([0, 11], [20, 24])).to.deep.equal([[[11, 14]]]);
    expect(gaps([0, 2], [22, 24])).to.deep.equal([
      [
        [2, 5],
        [10, 14],
        [20, 22],
      ],
    ]);
    // Speech before the first segment is a gap; after the last, uncoveredRest's.
    expect(gaps([10, 24])).to.deep.equal([[[0, 5]]]);
    expect(gaps([0, 4])).to.deep.equal([]);
  });

  it("counts only a region's utterances (its islands) as speech passed over, not the pauses between them", () => {
    const withIslands = (from: number, to: number, islands: Array<[number, number]>): GainedRegion => ({
      ...region(from, to),
      islands: islands.map(([start, end]) => ({ start: s(start), end: s(end), gain: 1 })),
    });
    const gaps = (r: GainedRegion, ...segments: Array<[number, number]>) =>
      uncoveredGaps(
        mergeRegions([r])[0]!,
        segments.map(([start, end]) => ({ start, end })),
        RATE,
      ).map((part) => part.regions.map(({ start, end }) => [start / RATE, end / RATE]));
    // A 1.6-s pause inside a region between two decoded sentences is no speech left over.
    expect(gaps(region(0, 9), [0, 4], [6, 9])).to.deep.equal([[[4, 6]]]);
    expect(
      gaps(
        withIslands(0, 9, [
          [0, 4.2],
          [5.8, 9],
        ]),
        [0, 4],
        [6, 9],
      ),
    ).to.deep.equal([]);
    // A sentence between two decoded ones is, and its gap holds just that sentence.
    expect(
      gaps(
        withIslands(0, 12, [
          [0, 3],
          [4.5, 7],
          [8.5, 12],
        ]),
        [0, 3],
        [8.5, 12],
      ),
    ).to.deep.equal([[[4.5, 7]]]);
  });

  it("prompts a window with the one before it only when asked, and stops when the request's signal aborts", async () => {
    const calls: Array<{ at: number; prompt: readonly number[] }> = [];
    const model = scriptedModel([ok([TS(0), 1, TS(10)]), ok([TS(0), 2, TS(20)]), ok([TS(0), 3, TS(6)])], calls);
    await decodeWindows(clock, windows, model, { startTokens: [TOKENS.sot], signal: new AbortController().signal, conditionOnPreviousWindow: true });
    expect(calls[1]!.prompt).to.deep.equal([TS(0), 1, TS(10)]);
    const controller = new AbortController();
    const aborting = scriptedModel([ok([TS(0), 1, TS(10)])], []);
    const pending = decodeWindows(clock, windows, aborting, {
      startTokens: [TOKENS.sot],
      signal: controller.signal,
      onSegments: () => controller.abort(new Error('client went away')),
    });
    await pending.then(
      () => expect.fail('should abort'),
      (error: Error) => expect(error.message).to.equal('client went away'),
    );
  });
});
