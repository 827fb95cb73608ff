/** Messages between BatchModel (main thread) and batch-model-worker (worker thread). */
import type { Dtype } from '../dtype.js';
import { workerModule } from '../worker/worker-api.js';
import type { ModelHead } from './load-transformers-model.js';

export interface BatchModelInit {
  modelsDir: string;
  /** Absolute folder of the weights (transformers.js layout). */
  dir: string;
  head: ModelHead;
  /** transformers.js dtype: selects onnx/model{suffix}.onnx (fp32 → model.onnx, q8 → model_quantized.onnx). */
  dtype: Dtype;
  /** Cut inputs to this many tokens (manifest `maxTokens`); the tokenizer's model_max_length when absent. */
  maxTokens?: number;
  /** ONNX Runtime intra-op threads of this worker's session. */
  threads?: number;
  /**
   * Let the intra-op threads spin between the parallel parts of a run (ONNX Runtime's default)
   * instead of sleeping. Only the solo session spins (see BatchModel): spinning makes a lone run
   * fastest on free cores, and steals them from other sessions running at the same time (see
   * LoneRunChooser). A number bounds each spell of spinning to that many microseconds.
   */
  spinning?: boolean | number;
  /**
   * Stop the spin when a run ends (default), so an idle session holds no core; false leaves
   * ONNX Runtime's own spin-then-sleep after each run (what Python's onnxruntime does), for as
   * long as `spinning` allows: the solo session's, bounded so the next lone request finds its
   * threads awake (BatchModel).
   */
  stopSpinningAfterRun?: boolean;
  maxBatchSize: number;
  /** Feature extraction: mean of the token vectors, or the first (CLS) token's. */
  pooling: 'mean' | 'cls';
  /** onnxruntime's CPU memory arena (EncoderOptions.memoryArena); off when absent. */
  memoryArena?: boolean;
}

export interface ForwardRequest {
  texts: string[];
  /** Second sequences (NLI hypotheses), one per text. */
  pairs?: string[];
  /** Also report how long each step took in the worker (the benchmark's breakdown). */
  profile?: boolean;
}

/** Milliseconds spent in the worker on one forward call, summed over its length buckets. */
export interface ForwardStages {
  tokenizeMs: number;
  /** The ONNX session's run, as the worker's event loop sees it. */
  runMs: number;
  /** Pooling (or reading the logits) and packing the rows for the reply. */
  poolMs: number;
  /**
   * When the worker started on the call and when it handed back the answer, in epoch ms
   * (performance.timeOrigin + now(), comparable across threads to a few µs): the caller's
   * own send and receive times split the round trip into its two hops.
   */
  receivedAt: number;
  repliedAt: number;
}

/** One output row per input text, flattened: rows × width. */
export interface ForwardResult {
  data: Float32Array;
  width: number;
  /** With `profile`. */
  stages?: ForwardStages;
}

/** The parts of config.json the engines read. */
export interface ModelFacts {
  id2label?: Record<string, string>;
  label2id?: Record<string, number>;
  problem_type?: string;
  /** Tokens of one text the model reads; longer texts are truncated (TEI's /info reports it). */
  maxInputTokens?: number;
}

/** The methods batch-model-worker.ts serves. */
export interface BatchModelApi {
  facts(): Promise<ModelFacts>;
  forward(request: ForwardRequest): Promise<ForwardResult>;
}

export const BATCH_MODEL_WORKER = workerModule<BatchModelApi, BatchModelInit>(import.meta.url, './batch-model-worker', {
  packages: ['@huggingface/transformers'],
});
