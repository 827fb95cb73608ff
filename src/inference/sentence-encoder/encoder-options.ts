/**
 * Manifest `options` every engine on the sentence encoder reads (the embeddings engine and the
 * classifiers): which weights, how many workers and threads, and how requests are micro-batched;
 * and what the encoder derives from them.
 */
import { availableParallelism } from 'node:os';
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { DTYPES } from '../dtype.js';
import { stringEnum } from '../engine-options.js';
import type { MicroBatcherOptions } from './micro-batcher.js';

/**
 * maxWaitMs 0: a wait of a few ms slowed one client and bought nothing at 8 or 32
 * (docs/benchmarks.md, "Text classification and translation").
 */
export const encoderOptions = {
  /** Picks the weight file, e.g. q8 → onnx/model_quantized.onnx as hub repos ship it. */
  dtype: stringEnum(DTYPES, { default: 'fp32' }),
  /** Another installed model's folder holding the weights (minilm-sentiment and minilm-topics share MiniLM). */
  baseModel: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*$' })),
  /** Model workers (each its own ONNX session) and intra-op threads each; see workerLayout. */
  workers: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  threads: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  /** Intra-op threads of the extra session for lone requests (BatchModel); 0 turns it off. See workerLayout. */
  soloThreads: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  /**
   * Longest input in tokens, special tokens included; longer texts are cut. Default: the
   * tokenizer's model_max_length. Set where the model was trained shorter than its tokenizer
   * says (all-MiniLM-L6-v2: 256, as sentence-transformers runs it; the hub's tokenizer says 512).
   */
  maxTokens: Type.Optional(Type.Integer({ minimum: 2, maximum: 65_536 })),
  maxBatchSize: Type.Integer({ minimum: 1, maximum: 512, default: 32 }),
  maxWaitMs: Type.Number({ minimum: 0, maximum: 1000, default: 0 }),
  /**
   * How token vectors become a sentence vector, as the model's sentence-transformers
   * 1_Pooling/config.json says: `mean` under the attention mask (MiniLM, e5) or the first
   * token's (`cls`: bge). Both are L2-normalised.
   */
  pooling: stringEnum(['mean', 'cls'] as const, { default: 'mean' }),
  /**
   * onnxruntime's CPU memory arena. Off (the default), each batch's buffers go back to the
   * allocator when it ends; on, every session keeps those of its largest batch so far (a batch of
   * 32 long texts: +440–670 MB) for the model's life, to save allocating them again. Figures in
   * docs/benchmarks.md ("Memory").
   */
  memoryArena: Type.Boolean({ default: false }),
} satisfies TProperties;

const EncoderOptions = Type.Object(encoderOptions);
export type EncoderOptions = Static<typeof EncoderOptions>;

/**
 * Most texts of batch lines in one run while requests come (within RESERVE_MS of one): without a
 * solo session, a request that arrives mid-batch waits for the run in progress, and a short one
 * keeps that wait near one request's own time. With nobody about, lines run in full batches.
 */
const BACKGROUND_RUN = 4;
/** How long after a request a batch's lines leave one worker free: those who sent one may send more. */
export const RESERVE_MS = 10_000;

export function batchOptions(options: EncoderOptions): Required<MicroBatcherOptions> {
  const layout = workerLayout(options);
  return {
    maxBatchSize: options.maxBatchSize,
    maxWaitMs: options.maxWaitMs,
    maxInFlight: layout.workers,
    maxBackgroundBatchSize: Math.min(options.maxBatchSize, BACKGROUND_RUN),
    // While a batch's lines keep every worker busy, a request runs on the solo session; for a while
    // after one, they leave a worker free for the next.
    foregroundSlots: layout.soloThreads > 0 ? 1 : 0,
    reserveMs: RESERVE_MS,
  };
}

/**
 * How many model workers (each with its own ONNX session), how many intra-op threads each, and
 * how many threads the solo session for lone requests has (0: none).
 *
 * Single-threaded sessions fed part of a batch each classify more texts per second than one
 * session with every core's threads (small GEMMs and the attention op parallelise poorly inside
 * one run). But a lone text on one thread leaves the other cores idle and takes longer, hence the
 * solo session, spanning every core, when
 * the batch sessions do not already. Defaults: 2 workers (1 on a single core), the cores split
 * between them, a solo session on all cores. Options `workers`, `threads` and `soloThreads` override.
 * Figures in docs/benchmarks.md, "Text classification and translation".
 */
export function workerLayout(
  options: Pick<EncoderOptions, 'workers' | 'threads' | 'soloThreads'>,
  cores = availableParallelism(),
): { workers: number; threads: number; soloThreads: number } {
  const workers = options.workers ?? Math.min(2, cores);
  const threads = options.threads ?? Math.max(1, Math.floor(cores / workers));
  return { workers, threads, soloThreads: options.soloThreads ?? (cores > threads ? cores : 0) };
}
