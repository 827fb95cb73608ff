/**
 * The batched VAD path on real audio, whisper-tiny.en and Silero VAD v6 (`npm run test-models`;
 * skipped when either is absent): the English speech clips with 3–6 s
 * pauses and two speakers 25 dB quieter (the fixture of test/http/transcriptions-vad-windows.test.ts,
 * its clips several times over),
 * windows decoded in batches give the segments, words and log probabilities of windows decoded
 * one at a time, with the user's prompt and hotwords too, and with beam search (several windows'
 * beams in one run); with a stream the first window is decoded and reported before the rest are
 * batched; an abort in the middle of a batch stops
 * the decode, and nothing runs on after it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from '@huggingface/transformers';
import { expect } from 'chai';
import { Pcm16Buffer } from '../../../src/audio/pcm16-buffer.js';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { decodeWindows, type WindowsDecodeOptions, type WindowsModel } from '../../../src/inference/speech-to-text/long-form/decode-windows.js';
import { type WhisperProcessor, withFastWhisperFeatures } from '../../../src/inference/speech-to-text/features/fast-features.js';
import { RewrittenDecoder } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import type { DecodedSegment } from '../../../src/inference/speech-to-text/long-form/long-form-decoder.js';
import type { SpeechWindow } from '../../../src/inference/speech-to-text/vad/speech-windows.js';
import { VadFilter } from '../../../src/inference/speech-to-text/vad/vad-filter.js';
import { whisperLongFormModel, type WhisperPipelineParts } from '../../../src/inference/speech-to-text/long-form/whisper-long-form-model.js';
import { whisperStartTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

const RATE = 16_000;
const MODELS_DIR = join(REPO_ROOT, 'models');
const PAUSES_SECONDS = [3, 5.5, 4, 6, 3.5, 4.5, 5, 3, 6, 4];
const QUIET = new Set([3, 7]);
/** The clips several times over: more windows than a batch holds, so windows start as others end. */
const CLIPS = 22;

type TestPipeline = WhisperPipelineParts & {
  tokenizer: { encode(text: string, options: { add_special_tokens: boolean }): number[] };
  processor: WhisperProcessor;
  dispose(): Promise<void>;
};

/** What must match between the two paths: every segment's text, times, tokens and words. */
function shape(segments: readonly DecodedSegment[]) {
  return segments.map((segment) => ({
    start: segment.start,
    end: segment.end,
    text: segment.text,
    tokens: segment.details.tokens,
    temperature: segment.details.temperature,
    words: segment.words?.map(({ word, start, end }) => `${start}-${end}:${word}`),
  }));
}

describe('decodeWindows in batches, whisper-tiny.en and Silero VAD v6 on the speech clips with long pauses', function () {
  this.timeout(900_000);
  let asr: TestPipeline;
  let vad: VadFilter;
  let model: WindowsModel;
  let audio: Pcm16Buffer;
  let windows: SpeechWindow[];
  let base: WindowsDecodeOptions;

  before(async function () {
    if (!['whisper-tiny.en', 'silero-vad-v6'].every((id) => existsSync(join(MODELS_DIR, id, '.installed.json')))) this.skip(); // `npm run test-models`
    configureRuntime({ modelsDir: MODELS_DIR });
    asr = withFastWhisperFeatures(
      (await pipeline('automatic-speech-recognition', 'whisper-tiny.en', {
        dtype: 'fp32',
        device: 'cpu',
        session_options: { intraOpNumThreads: 2, interOpNumThreads: 1, enableCpuMemArena: false, extra: { session: { disable_prepacking: '1' } } },
      })) as unknown as TestPipeline,
    );
    model = whisperLongFormModel(asr)!;
    const shared = await decodeClipsOnce(await readSpeechClips(SPEECH_DIR));
    const clips = Array.from({ length: CLIPS }, (_, index) => shared[index % shared.length]!);
    audio = new Pcm16Buffer();
    for (const [index, clip] of clips.entries()) {
      const gain = QUIET.has(index) ? 10 ** (-25 / 20) : 1;
      audio.append(clip.samples.map((sample) => sample * gain));
      audio.append(new Float32Array(Math.round(PAUSES_SECONDS[index % PAUSES_SECONDS.length]! * RATE)));
    }
    vad = new VadFilter(join(MODELS_DIR, 'silero-vad-v6/silero_vad_v6.onnx'));
    windows = (await vad.speechWindows(audio, RATE, { always: true, options: {} }))!;
    base = { startTokens: whisperStartTokens(asr.model.generation_config ?? {}, {}), signal: new AbortController().signal, sampleRate: RATE, language: 'en' };
  });
  after(async () => {
    await vad?.dispose();
    await asr?.dispose();
  });

  it('gives the segments, words and log probabilities of the one-at-a-time decode, reported in order', async () => {
    expect(windows.length).to.be.greaterThan(5);
    const options: WindowsDecodeOptions = { ...base, words: true, logprobs: true };
    const alone = await decodeWindows(audio, windows, model, options);
    const reported: DecodedSegment[] = [];
    const batched = await decodeWindows(audio, windows, model, { ...options, batchSize: 3, onSegments: (fresh) => reported.push(...fresh) });
    expect(shape(batched)).to.deep.equal(shape(alone));
    expect(shape(reported)).to.deep.equal(shape(batched));
    expect(batched.map((segment) => segment.text).join('')).to.match(/ask not what your country can do for you/i);
    for (const [index, segment] of batched.entries()) {
      const expected = alone[index]!.tokenLogprobs!;
      expect(segment.tokenLogprobs).to.have.length(expected.length);
      segment.tokenLogprobs!.forEach((logprob, at) => expect(logprob).to.be.closeTo(expected[at]!, 1e-3));
    }
  });

  it('with a stream (onSegments), reports the first window before the others are decoded, then batches the rest', async () => {
    const events: string[] = [];
    const decoder = model.decoder;
    const logging: WindowsModel = {
      ...model,
      decoder: {
        encode: (features) => decoder.encode(features),
        decode: (request) => decoder.decode(request),
        decodeBatch: (requests, onDecoded) => {
          events.push(`batch of ${requests.length}`);
          return decoder.decodeBatch!(requests, onDecoded);
        },
      },
    };
    const few = windows.slice(0, 4);
    const reported: DecodedSegment[] = [];
    const segments = await decodeWindows(audio, few, logging, {
      ...base,
      batchSize: 3,
      onSegments: (fresh) => {
        events.push(`report from ${fresh[0]!.start} s`);
        reported.push(...fresh);
      },
    });
    const firstReport = events.findIndex((event) => event.startsWith('report'));
    // Only the first window's rows (its follow-ups too) were decoded before its text went out ...
    expect(firstReport, events.join('; ')).to.be.greaterThan(0);
    expect(
      events.slice(0, firstReport).every((event) => event === 'batch of 1'),
      events.join('; '),
    ).to.equal(true);
    expect(reported[0]!.start).to.be.below(few[0]!.end / RATE);
    // ... and the other three stepped together after it.
    expect(events.slice(firstReport).includes('batch of 3'), events.join('; ')).to.equal(true);
    expect(shape(reported)).to.deep.equal(shape(segments));
    expect(shape(segments)).to.deep.equal(shape(await decodeWindows(audio, few, model, base)));
  });

  it("keeps the user's prompt and hotwords in every window of a batch", async () => {
    const encode = (text: string) => asr.tokenizer.encode(text, { add_special_tokens: false });
    const options: WindowsDecodeOptions = {
      ...base,
      initialPrompt: encode(' Mr. John Dashwood, Elinor.'),
      hotwords: encode(' Dashwood'),
      temperatures: [0, 0.4, 0.8],
    };
    const few = windows.slice(0, 5);
    const alone = await decodeWindows(audio, few, model, options);
    const batched = await decodeWindows(audio, few, model, { ...options, batchSize: 5 });
    expect(shape(batched)).to.deep.equal(shape(alone));
  });

  it('gives the one-at-a-time segments with beam search, several windows’ beams stepping together', async () => {
    const session = (await RewrittenDecoder.of(join(MODELS_DIR, 'whisper-tiny.en'), 'fp32', { intraOpNumThreads: 2, interOpNumThreads: 1 })!.open())!;
    try {
      let widest = 0;
      const searching = whisperLongFormModel(asr, {
        decoder: {
          ...session,
          run: (feeds: Record<string, unknown>, fetches?: readonly string[]) => {
            widest = Math.max(widest, (feeds.input_ids as { dims: readonly number[] }).dims[0]!);
            return session.run(feeds, fetches);
          },
        },
        fitsSearchBatch: (count, rows) => count * rows <= 15,
      })!;
      // Temperature 0 only: a fallback's samples come from Math.random, different in each decode.
      const options: WindowsDecodeOptions = { ...base, temperatures: [0], search: { beamSize: 5 } };
      const few = windows.slice(0, 6);
      const alone = await decodeWindows(audio, few, searching, options);
      const batched = await decodeWindows(audio, few, searching, { ...options, batchSize: 4 });
      expect(shape(batched)).to.deep.equal(shape(alone));
      expect(widest).to.equal(15); // three windows of 5 beams in a run
    } finally {
      await session.release();
    }
  });

  it('stops in the middle of a batch once the signal aborts, and runs nothing after', async () => {
    const controller = new AbortController();
    let runs = 0;
    let batches = 0;
    let batchFailed = false;
    const decoder = model.decoder;
    const counting: WindowsModel = {
      ...model,
      decoder: {
        encode: (features) => {
          runs++;
          return decoder.encode(features);
        },
        decode: (request) => decoder.decode(request),
        decodeBatch: (requests) => {
          runs++;
          // Abort a few steps into the second batch, while its rows are decoding.
          if (++batches === 2) setTimeout(() => controller.abort(new Error('client went away')), 150);
          return decoder.decodeBatch!(requests).catch((error: unknown) => {
            batchFailed = true;
            throw error;
          });
        },
      },
    };
    const started = performance.now();
    await decodeWindows(audio, windows, counting, { ...base, signal: controller.signal, batchSize: 4 }).then(
      () => expect.fail('should abort'),
      (error: Error) => expect(error.message).to.equal('client went away'),
    );
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(batchFailed, 'the batch itself stopped').to.equal(true);
    expect(runs, 'model runs after the abort').to.equal(after);
    expect(performance.now() - started).to.be.below(60_000);
  });
});
