/**
 * The manifest `options` of a `transformers-asr` model, validated once at load time.
 *
 * ```json
 * "options": { "dtype": "q8", "multilingual": false, "chunkLengthSeconds": 30, "strideSeconds": 5,
 *              "threads": 1, "fastFeatures": true, "threadNice": 10, "maxNewTokens": 224 }
 * ```
 */
import { availableParallelism } from 'node:os';
import type { ManifestEntry } from '../manifest.js';

export type Dtype = string | Readonly<Record<string, string>>;

export interface AsrOptions {
  /** transformers.js dtype: which ONNX variant to load (fp32 → model.onnx, q8 → model_quantized.onnx). */
  dtype: Dtype;
  /** Whether `language`/`task` may be set; read from generation_config.json when absent. */
  multilingual?: boolean;
  /** Audio longer than one Whisper window is cut into windows of this length… */
  chunkLengthSeconds: number;
  /** …overlapping by this much on each side, and the overlaps are merged by token alignment. */
  strideSeconds: number;
  /** onnxruntime intra-op threads. */
  threads: number;
  /** Log-mel features by our WhisperLogMel (default) or by transformers.js (false). */
  fastFeatures: boolean;
  /** Nice value of the worker thread (0–19); the default 10 keeps HTTP latency low under load. */
  threadNice: number;
  /** Caps tokens generated per window (Whisper's own limit is 448). */
  maxNewTokens?: number;
}

export class AsrOptionsError extends Error {
  override name = 'AsrOptionsError';
}

/**
 * Default threads leave one core to the event loop and the other workers: onnxruntime
 * otherwise spins a thread per core and HTTP latency suffers while transcribing.
 */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export function readAsrOptions(entry: ManifestEntry): AsrOptions {
  const raw = entry.options ?? {};
  const where = `model "${entry.id}" options`;
  const dtype = raw.dtype ?? 'fp32';
  if (typeof dtype !== 'string' && (typeof dtype !== 'object' || dtype === null || Array.isArray(dtype))) {
    throw new AsrOptionsError(`${where}.dtype must be a string or an object of strings`);
  }
  const options: AsrOptions = {
    dtype: dtype as Dtype,
    chunkLengthSeconds: positiveNumber(raw.chunkLengthSeconds, 30, `${where}.chunkLengthSeconds`),
    strideSeconds: positiveNumber(raw.strideSeconds, 5, `${where}.strideSeconds`),
    threads: Math.round(positiveNumber(raw.threads, defaultThreads(), `${where}.threads`)),
    fastFeatures: optionalBoolean(raw.fastFeatures, true, `${where}.fastFeatures`),
    threadNice: Math.round(nonNegativeNumber(raw.threadNice, 10, `${where}.threadNice`)),
  };
  if (options.threadNice > 19) throw new AsrOptionsError(`${where}.threadNice must be between 0 and 19`);
  if (options.strideSeconds * 2 >= options.chunkLengthSeconds) {
    throw new AsrOptionsError(`${where}: strideSeconds must be less than half of chunkLengthSeconds`);
  }
  if (raw.multilingual !== undefined) options.multilingual = optionalBoolean(raw.multilingual, false, `${where}.multilingual`);
  if (raw.maxNewTokens !== undefined) options.maxNewTokens = Math.round(positiveNumber(raw.maxNewTokens, 0, `${where}.maxNewTokens`));
  return options;
}

function optionalBoolean(value: unknown, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new AsrOptionsError(`${name} must be a boolean`);
  return value;
}

function nonNegativeNumber(value: unknown, fallback: number, name: string): number {
  return value === 0 ? 0 : positiveNumber(value, fallback, name);
}

function positiveNumber(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new AsrOptionsError(`${name} must be a positive number`);
  }
  return value;
}
