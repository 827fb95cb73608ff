/**
 * decodeWindows with `batchSize` over a scripted window decoder that can batch: each window gets
 * the decodes (and follow-up decodes) it gets alone, their decoder calls share batches, segments
 * are reported in window order, at most `batchSize` windows are in flight, a window goes on as
 * soon as its row of a batch ends, and an abort inside a batch stops every window. (The real model: decode-windows-batched.slow.test.ts.)
 */
import { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import { floatReader } from '../../../src/audio/pcm16-buffer.js';
import { decodeWindows, type WindowsModel } from '../../../src/inference/speech-to-text/long-form/decode-windows.js';
import type { DecodedSegment } from '../../../src/inference/speech-to-text/long-form/long-form-decoder.js';
import { type GainedRegion, mergeRegions } from '../../../src/inference/speech-to-text/vad/speech-windows.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';

const RATE = 16_000;
const s = (seconds: number) => seconds * RATE;
const region = (from: number, to: number): GainedRegion => ({ start: s(from), end: s(to), gain: 1 });
const TOKENS: WhisperSpecialTokens = { eot: 100, sot: 101, noTimestamps: 102, timestampBegin: 103, suppress: [], beginSuppress: [] };
const TS = (seconds: number) => TOKENS.timestampBegin + Math.round(seconds / 0.02);
const WORDS = ['', ' one', ' two', ' three', ' four', ' five'];
const ok = (tokens: number[]): WindowDecodeResult => ({ tokens, avgLogProb: -0.2, noSpeechProb: 0.01 });

/** 200 s where every sample holds its own time / 100, so a decode knows where its audio starts. */
const clock = floatReader(Float32Array.from({ length: s(200) }, (_, i) => Math.floor(i / 160) / 10_000));
/** Four windows: 5–15 s and 40–60 s each need a second decode (their first stops early), 80–86 s and 120–125 s one. */
const windows = mergeRegions([region(5, 15), region(40, 60), region(80, 86), region(120, 125)]);
/** The decode of the audio starting at each time (seconds). */
const SCRIPT: ReadonlyMap<number, WindowDecodeResult> = new Map([
  [5, ok([TS(0), 1, TS(4), TS(4), 2, TS(9), TS(9)])],
  [14, ok([])],
  [40, ok([TS(0), 3, TS(8), TS(8), 4])],
  [48, ok([TS(0), 4, TS(12)])],
  [80, ok([TS(1), 5, TS(5)])],
  [120, ok([TS(0), 1, TS(4)])],
]);

interface Log {
  /** Start (seconds) of every window's audio as its features were read. */
  features: number[];
  /** Starts decoded by each decodeBatch call. */
  batches: number[][];
  decodes: number;
}

/** A model decoding by SCRIPT; its encoder output carries the audio's start. `onBatch` runs before a batch is answered. */
function scriptedModel(log: Log, batching: boolean, onBatch?: (batch: number) => void): WindowsModel {
  const startOf = (request: WindowDecodeRequest) => (request.audioFeatures.data as Float32Array)[0]!;
  const answer = (at: number) => {
    const result = SCRIPT.get(at);
    if (!result) throw new Error(`no decode scripted at ${at} s`);
    return result;
  };
  return {
    tokens: TOKENS,
    features: async (pcm) => {
      const at = Math.round(pcm[0]! * 10_000) / 100;
      log.features.push(at);
      return new Tensor('float32', Float32Array.of(at), [1, 1, 1]);
    },
    decoder: {
      encode: async (features) => features,
      decode: async (request) => {
        log.decodes++;
        return answer(startOf(request));
      },
      decodeBatch: batching
        ? async (requests) => {
            log.batches.push(requests.map(startOf));
            onBatch?.(log.batches.length);
            for (const request of requests) request.signal.throwIfAborted();
            return requests.map((request) => answer(startOf(request)));
          }
        : undefined,
    },
    detokenize: (ids) => ids.map((id) => WORDS[id] ?? '?').join(''),
  };
}

const timed = (segments: readonly DecodedSegment[]) => segments.map((segment): [number, number, string] => [segment.start, segment.end, segment.text]);
const newLog = (): Log => ({ features: [], batches: [], decodes: 0 });

describe('decodeWindows in batches (scripted windows)', () => {
  it('gives every window the decodes it gets alone, batched across windows, and reports segments in window order', async () => {
    const alone = await decodeWindows(clock, windows, scriptedModel(newLog(), false), { startTokens: [TOKENS.sot], signal: new AbortController().signal });
    const log = newLog();
    const reported: Array<[number, number, string]> = [];
    const segments = await decodeWindows(clock, windows, scriptedModel(log, true), {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      batchSize: 4,
      onSegments: (fresh) => reported.push(...timed(fresh)),
    });
    expect(timed(segments)).to.deep.equal(timed(alone));
    expect(timed(segments)).to.deep.equal([
      [5, 9, ' one'],
      [9, 14, ' two'],
      [40, 48, ' three'],
      [48, 60, ' four'],
      [80, 85, ' five'],
      [120, 124, ' one'],
    ]);
    // A caller that takes segments as they come gets the first window decoded alone (its follow-up
    // too), then the rest batched; the last two end after their first batch, before the second: their segments waited.
    expect(log.batches).to.deep.equal([[5], [14], [40, 80, 120], [48]]);
    expect(log.decodes).to.equal(0);
    expect(reported).to.deep.equal(timed(segments));
  });

  it('batches every window from the first when nobody takes segments on the way', async () => {
    const log = newLog();
    await decodeWindows(clock, windows, scriptedModel(log, true), { startTokens: [TOKENS.sot], signal: new AbortController().signal, batchSize: 4 });
    expect(log.batches).to.deep.equal([
      [5, 40, 80, 120],
      [14, 48],
    ]);
  });

  it('streams the first window before the last is decoded, and each later window as its batch row is done', async () => {
    const events: string[] = [];
    const model = scriptedModel(newLog(), true);
    const batching = model.decoder.decodeBatch!;
    model.decoder.decodeBatch = async (requests, onDecoded) => {
      const starts = requests.map((request) => (request.audioFeatures.data as Float32Array)[0]!);
      events.push(`batch ${starts.join(',')}`);
      return batching(requests, onDecoded);
    };
    await decodeWindows(clock, windows, model, {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      batchSize: 4,
      onSegments: (fresh) => events.push(`report ${fresh.map((segment) => segment.start).join(',')}`),
    });
    expect(events).to.deep.equal(['batch 5', 'batch 14', 'report 5,9', 'batch 40,80,120', 'batch 48', 'report 40,48', 'report 80', 'report 120']);
  });

  it('holds at most batchSize windows at once, the next starting as one ends', async () => {
    const log = newLog();
    await decodeWindows(clock, windows, scriptedModel(log, true), { startTokens: [TOKENS.sot], signal: new AbortController().signal, batchSize: 2 });
    expect(log.batches).to.deep.equal([
      [5, 40],
      [14, 48],
      [80, 120],
    ]);
  });

  it('lets a window go on (its next decode’s features and encoder run) as soon as its row ends, while its batch goes on', async () => {
    const log = newLog();
    const model = scriptedModel(log, true);
    const batching = model.decoder.decodeBatch!;
    let readDuringFirstBatch: number[] = [];
    model.decoder.decodeBatch = async (requests, onDecoded) => {
      const results = await batching(requests);
      if (log.batches.length === 1) {
        // The row of 40–60 s ends first: its window reads the rest from 48 s while the row of 5–15 s decodes on.
        onDecoded?.(1, results[1]!);
        await new Promise((resolve) => setTimeout(resolve, 10));
        readDuringFirstBatch = [...log.features];
      }
      return results;
    };
    const segments = await decodeWindows(clock, windows, model, { startTokens: [TOKENS.sot], signal: new AbortController().signal, batchSize: 2 });
    expect(readDuringFirstBatch).to.deep.equal([5, 40, 48]);
    expect(timed(segments).map(([start]) => start)).to.deep.equal([5, 9, 40, 48, 80, 120]);
  });

  it('decodes one window at a time when windows are prompted by the one before', async () => {
    const log = newLog();
    await decodeWindows(clock, windows, scriptedModel(log, true), {
      startTokens: [TOKENS.sot],
      signal: new AbortController().signal,
      batchSize: 4,
      conditionOnPreviousWindow: true,
    });
    expect(log.batches).to.deep.equal([]);
    expect(log.decodes).to.equal(6);
  });

  it('stops every window once the signal aborts inside a batch, and starts no other', async () => {
    const log = newLog();
    const controller = new AbortController();
    const model = scriptedModel(log, true, (batch) => {
      if (batch === 2) controller.abort(new Error('client went away'));
    });
    const pending = decodeWindows(clock, windows, model, { startTokens: [TOKENS.sot], signal: controller.signal, batchSize: 2 });
    await pending.then(
      () => expect.fail('should abort'),
      (error: Error) => expect(error.message).to.equal('client went away'),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log.features).to.deep.equal([5, 40, 14, 48]);
    expect(log.batches).to.have.length(2);
  });
});
