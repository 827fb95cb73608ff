/**
 * Batched vs sequential decoding of independent 30-s Whisper windows (what VAD chunks of a long
 * file are): K windows, each the shared English clips packed up to 30 s with 1.5-s pauses (as
 * VAD regions are merged), encoded once a round (timed; log-mel features are computed once
 * before, untimed), then decoded greedily with timestamps by the window decoder one window at a
 * time (`decode`) and in batches of B (`decodeBatch`). Rounds alternate the sides; best of the
 * rounds each. Checks that every batched window gives the sequential tokens, and prints the
 * decode time ratio and the encoder + decode ratio, with the load.
 *
 *   tsx scripts/bench/whisper-batch.ts [--windows 8] [--batch 2,4,8] [--threads 2] [--rounds 3] [--dtype fp32|q8] [--memory | --encoder]
 *
 * --memory: instead, one child process per batch size (1 and each B) decodes the K windows in
 * batches of B and prints its peak RSS over its RSS before (after the load, the encoder and one
 * sequential pass; polled every 2 ms): what a batch adds (memory arena off, as the server runs).
 *
 * --encoder: instead, the encoder session alone, one run over B windows vs runs of one (why the
 * product encodes each window on its own).
 *
 * Env: MODELS_DIR (default models; `npm run test-models` installs whisper-tiny.en), EVAL_SPEECH_DIR.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { pipeline, type Tensor } from '@huggingface/transformers';
import { configureRuntime } from '../../src/inference/runtime.js';
import { type WhisperProcessor, withFastWhisperFeatures } from '../../src/inference/speech-to-text/features/fast-features.js';
import { whisperSpecialTokens, whisperStartTokens, type WhisperGenerationConfig } from '../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { WhisperWindowDecoder } from '../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import type { WindowDecodeResult } from '../../src/inference/speech-to-text/decoding/window-decode-request.js';
import type { WhisperSeq2Seq } from '../../src/inference/speech-to-text/decoder/decoder-passes.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { decodeClipsOnce } from '../eval/lib/long-speech.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';

const MODEL_ID = 'whisper-tiny.en';
const RATE = 16_000;
const WINDOW_SECONDS = 30;
const PAUSE_SECONDS = 1.5;

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '8' },
    batch: { type: 'string', default: '2,4,8' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    dtype: { type: 'string', default: 'fp32' },
    memory: { type: 'boolean', default: false },
    encoder: { type: 'boolean', default: false },
    'memory-child': { type: 'string' },
  },
});
const windowCount = Math.max(1, Number(args.windows));
const batchSizes = args
  .batch!.split(',')
  .map(Number)
  .filter((size) => size >= 1);
const threads = Number(args.threads);

interface Bench {
  decoder: WhisperWindowDecoder;
  startTokens: number[];
  features: Tensor[];
  seconds: number[];
  /** The encoder session itself, for --encoder (which feeds it whole batches). */
  encoder: { run(feeds: Record<string, unknown>): Promise<unknown> };
}

/** The clips packed in order into windows of at most 30 s, pauses between them; clips repeat to give `count`. */
function packWindows(clips: readonly Float32Array[], count: number): Float32Array[] {
  const windows: Float32Array[] = [];
  const pause = PAUSE_SECONDS * RATE;
  let parts: Float32Array[] = [];
  let length = 0;
  for (let index = 0; windows.length < count; index++) {
    const clip = clips[index % clips.length]!.subarray(0, WINDOW_SECONDS * RATE);
    if (length + (parts.length > 0 ? pause : 0) + clip.length > WINDOW_SECONDS * RATE) {
      windows.push(joinWithPauses(parts, pause));
      parts = [];
      length = 0;
    }
    length += (parts.length > 0 ? pause : 0) + clip.length;
    parts.push(clip);
  }
  return windows;
}

function joinWithPauses(parts: readonly Float32Array[], pause: number): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0) + pause * (parts.length - 1));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length + pause;
  }
  return out;
}

async function setUp(): Promise<Bench> {
  configureRuntime({ modelsDir: process.env.MODELS_DIR ?? resolve('models') });
  const asr = withFastWhisperFeatures(
    (await pipeline('automatic-speech-recognition', MODEL_ID, {
      dtype: args.dtype as never,
      device: 'cpu',
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1, enableCpuMemArena: false, extra: { session: { disable_prepacking: '1' } } },
    })) as unknown as {
      model: WhisperSeq2Seq & { generation_config: WhisperGenerationConfig };
      tokenizer: { get_vocab(): Map<string, number> };
      processor: WhisperProcessor;
    },
  );
  const tokens = whisperSpecialTokens(asr.model.generation_config, asr.tokenizer.get_vocab())!;
  const clips = await decodeClipsOnce(await readSpeechClips());
  const windows = packWindows(
    clips.map((clip) => clip.samples),
    windowCount,
  );
  const features: Tensor[] = [];
  for (const pcm of windows) features.push((await asr.processor(pcm)).input_features);
  return {
    decoder: new WhisperWindowDecoder(asr.model, tokens),
    startTokens: whisperStartTokens(asr.model.generation_config, {}),
    features,
    seconds: windows.map((pcm) => pcm.length / RATE),
    encoder: asr.model.sessions.model!,
  };
}

/** Each window's encoder output, one run per window as the product encodes (batching the encoder does not pay: --encoder). */
async function encodeAll(bench: Bench): Promise<Tensor[]> {
  const outputs: Tensor[] = [];
  for (const inputFeatures of bench.features) outputs.push(await bench.decoder.encode(inputFeatures));
  return outputs;
}

/** Decodes every window in batches of `size` (1: the sequential path, `decode` one window at a time). */
async function decodeAll(bench: Bench, audio: readonly Tensor[], size: number): Promise<WindowDecodeResult[]> {
  const signal = new AbortController().signal;
  const request = (audioFeatures: Tensor) => ({ audioFeatures, prompt: [], startTokens: bench.startTokens, temperature: 0, maxTokens: 224, signal });
  const results: WindowDecodeResult[] = [];
  for (let at = 0; at < audio.length; at += size) {
    const group = audio.slice(at, at + size);
    if (size === 1) results.push(await bench.decoder.decode(request(group[0]!)));
    else results.push(...(await bench.decoder.decodeBatch(group.map(request))));
  }
  return results;
}

async function timeIt<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, value };
}

async function speedBench(): Promise<void> {
  const bench = await setUp();
  const audioSeconds = bench.seconds.reduce((a, b) => a + b, 0);
  console.log(
    `whisper-batch: ${MODEL_ID} ${args.dtype}, ${threads} threads, ${bench.features.length} windows (${audioSeconds.toFixed(0)} s of audio, packed clips), ` +
      `batches ${batchSizes.join(', ')}, rounds ${args.rounds}; load average ${loadAverage()}`,
  );
  await decodeAll(bench, await encodeAll(bench), 1); // warm-up
  let encoder = Infinity;
  const best = new Map<number, number>();
  let reference: WindowDecodeResult[] | undefined;
  const mismatches = new Map<number, number>();
  for (let round = 0; round < Number(args.rounds); round++) {
    const encoded = await timeIt(() => encodeAll(bench));
    encoder = Math.min(encoder, encoded.seconds);
    for (const size of [1, ...batchSizes]) {
      const { seconds, value } = await timeIt(() => decodeAll(bench, encoded.value, size));
      best.set(size, Math.min(best.get(size) ?? Infinity, seconds));
      if (size === 1) reference ??= value;
      else {
        const differ = value.filter((result, index) => result.tokens.join() !== reference!.at(index)?.tokens.join()).length;
        mismatches.set(size, Math.max(mismatches.get(size) ?? 0, differ));
      }
      console.log(`  round ${round + 1}, decode batch ${size}: ${seconds.toFixed(2)} s (load ${loadAverage()})`);
    }
  }
  const tokens = reference!.map((result) => result.tokens.length);
  const sequential = best.get(1)!;
  console.log(`encoder: ${encoder.toFixed(2)} s (${((encoder / bench.features.length) * 1000).toFixed(0)} ms a window)`);
  console.log(`sequential decode: ${sequential.toFixed(2)} s for ${tokens.reduce((a, b) => a + b, 0)} tokens (per window: ${tokens.join(', ')})`);
  for (const size of batchSizes) {
    const seconds = best.get(size)!;
    console.log(
      `batch ${size}: decode ${seconds.toFixed(2)} s, ${(seconds / sequential).toFixed(2)}× sequential; encoder + decode ${((encoder + seconds) / (encoder + sequential)).toFixed(2)}×; ` +
        `windows whose tokens differ: ${mismatches.get(size)}/${bench.features.length}`,
    );
  }
  console.log(`load average ${loadAverage()}`);
}

/** Child: peak RSS over the RSS after the load while decoding in batches of `size`. */
async function memoryChild(size: number): Promise<void> {
  const bench = await setUp();
  const audio = await encodeAll(bench);
  await decodeAll(bench, audio, 1); // the sessions' first-run allocations are not a batch's
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  await decodeAll(bench, audio, size);
  clearInterval(timer);
  console.log(JSON.stringify({ size, beforeMb: before / 2 ** 20, addedMb: (peak - before) / 2 ** 20 }));
}

async function memoryBench(): Promise<void> {
  const run = promisify(execFile);
  const thisFile = fileURLToPath(import.meta.url);
  console.log(`whisper-batch memory: ${MODEL_ID} ${args.dtype}, ${threads} threads, ${windowCount} windows; load average ${loadAverage()}`);
  for (const size of [1, ...batchSizes]) {
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      thisFile,
      '--memory-child',
      String(size),
      '--windows',
      String(windowCount),
      '--threads',
      String(threads),
      '--dtype',
      args.dtype!,
    ]);
    const { beforeMb, addedMb } = JSON.parse(stdout.trim().split('\n').pop()!) as { beforeMb: number; addedMb: number };
    console.log(`batch ${size}: RSS after load ${beforeMb.toFixed(0)} MB, peak while decoding +${addedMb.toFixed(0)} MB`);
  }
  console.log(`load average ${loadAverage()}`);
}

/** The encoder alone: one run over B windows' features vs B runs of one, best of the rounds, per window. */
async function encoderBench(): Promise<void> {
  const bench = await setUp();
  const features = bench.features.map(
    (tensor) => (tensor as unknown as { ort_tensor: { data: Float32Array; dims: number[]; constructor: unknown } }).ort_tensor,
  );
  const TensorClass = features[0]!.constructor as new (type: string, data: Float32Array, dims: number[]) => unknown;
  const stacked = (size: number) => {
    const data = new Float32Array(size * features[0]!.data.length);
    for (let row = 0; row < size; row++) data.set(features[row % features.length]!.data, row * features[0]!.data.length);
    return new TensorClass('float32', data, [size, ...features[0]!.dims.slice(1)]);
  };
  await bench.encoder.run({ input_features: stacked(1) });
  const best = new Map<number, number>();
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const size of [1, ...batchSizes]) {
      const input = stacked(size);
      const runs = Math.max(1, Math.floor(windowCount / size));
      const { seconds } = await timeIt(async () => {
        for (let run = 0; run < runs; run++) await bench.encoder.run({ input_features: input });
      });
      best.set(size, Math.min(best.get(size) ?? Infinity, seconds / (runs * size)));
    }
  }
  console.log(`whisper-batch encoder: ${MODEL_ID} ${args.dtype}, ${threads} threads, best of ${args.rounds} rounds (load ${loadAverage()})`);
  for (const [size, seconds] of best)
    console.log(`encoder batch ${size}: ${(seconds * 1000).toFixed(0)} ms a window, ${(seconds / best.get(1)!).toFixed(2)}× one at a time`);
}

if (args['memory-child']) await memoryChild(Number(args['memory-child']));
else if (args.memory) await memoryBench();
else if (args.encoder) await encoderBench();
else await speedBench();
