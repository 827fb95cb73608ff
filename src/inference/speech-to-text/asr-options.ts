/**
 * The manifest `options` of a `transformers-asr` model (TypeBox schema, checked at start-up).
 *
 * ```json
 * "options": { "dtype": "q8", "multilingual": false, "chunkLengthSeconds": 30, "strideSeconds": 5,
 *              "threads": 1, "fastFeatures": true, "threadNice": 10, "memoryArena": false,
 *              "prepackWeights": false, "maxNewTokens": 224,
 *              "batchMemoryMb": 256 }
 * ```
 */
import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import type { OptionsRule } from '../engine-options.js';

export const AsrOptions = Type.Object(
  {
    /** transformers.js dtype: which ONNX variant to load (fp32 → model.onnx, q8 → model_quantized.onnx), or one per part. */
    dtype: Type.Union([Type.String({ minLength: 1 }), Type.Record(Type.String(), Type.String())], {
      default: 'fp32',
      description: 'a dtype string or an object of strings',
    }),
    /** Whether `language`/`task` may be set; read from generation_config.json when absent. */
    multilingual: Type.Optional(Type.Boolean()),
    /**
     * Audio longer than this is decoded window by window with openai/whisper's long-form algorithm
     * (long-form-decoder.ts); only a model without timestamp tokens is cut into windows of this length…
     */
    chunkLengthSeconds: Type.Number({ exclusiveMinimum: 0, default: 30 }),
    /** …overlapping by this much on each side, merged by token alignment (that fallback only). */
    strideSeconds: Type.Number({ exclusiveMinimum: 0, default: 5 }),
    /** onnxruntime intra-op threads; all cores but one when absent (see defaultThreads). */
    threads: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
    /** Log-mel features by our WhisperLogMel (default) or by transformers.js (false). */
    fastFeatures: Type.Boolean({ default: true }),
    /** Nice value of the worker thread (0–19); the default 10 keeps HTTP latency low under load. */
    threadNice: Type.Integer({ minimum: 0, maximum: 19, default: 10 }),
    /**
     * onnxruntime's CPU memory arena. It keeps the largest buffers each window and prompt length
     * needed (the encoder's attention scores among them), so it is off by default: without it
     * the peak RSS of a long file is far lower at the same CPU (docs/benchmarks.md, "Memory").
     */
    memoryArena: Type.Boolean({ default: false }),
    /**
     * onnxruntime's weight pre-packing (a copy of each weight in its matrix kernel's layout).
     * Default: off when every part is fp32, on otherwise. fp32 runs as fast without it and the
     * decoder's tied embedding, which the token lookup also reads, is not copied a second time.
     * The q8 kernels need it (much slower decoder steps without) and save nothing. Off, the
     * decoder every decode runs on (graph/rewritten-decoder.ts) still pre-packs up to 512 MiB (tiny,
     * base fp32): its steps of several rows need it. Figures in docs/benchmarks.md, "Memory".
     */
    prepackWeights: Type.Optional(Type.Boolean()),
    /** Caps tokens generated per window (Whisper's own limit is 448). */
    maxNewTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * onnxruntime's idle compute threads spin-wait between operators (its own default) instead of
     * sleeping. Off by default: a spinning thread takes a core from the worker's own thread and
     * from everything else on the machine; on a shared 2-core machine a long VAD file took less
     * wall time and less CPU with sleeping threads (docs/benchmarks.md, "Speech to text";
     * ort-threads.ts).
     */
    spinning: Type.Boolean({ default: false }),
    /**
     * Memory (MiB) a batch of VAD windows decoded side by side may add (whisper-batch-size.ts
     * counts each row's caches: ~25 MiB tiny, ~49 base, ~616 large-v3 fp32); 0 decodes the
     * windows one at a time. The batch is also capped by the threads. 256 (tiny: 10 rows) gave
     * most of 512's speed at a lower peak (docs/benchmarks.md, "Speech to text").
     */
    batchMemoryMb: Type.Integer({ minimum: 0, default: 256 }),
    /**
     * Intra-op threads of the encoder, which then runs in a thread of its own
     * (whisper-encoder-thread.ts): the next windows' encoder runs while the decoder steps through
     * the current ones. 0 keeps it in the worker's thread. Default: `threads`.
     */
    encoderThreads: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  },
  { additionalProperties: false },
);

export type AsrOptions = Static<typeof AsrOptions>;

export const asrOptionsRule: OptionsRule<AsrOptions> = (options) =>
  options.strideSeconds * 2 >= options.chunkLengthSeconds ? 'options.strideSeconds must be less than half of options.chunkLengthSeconds' : undefined;

/** Pre-packing on or off for this dtype (see AsrOptions.prepackWeights). */
export function prepacksWeights(options: Pick<AsrOptions, 'dtype' | 'prepackWeights'>): boolean {
  const parts = typeof options.dtype === 'string' ? [options.dtype] : Object.values(options.dtype);
  return options.prepackWeights ?? !parts.every((dtype) => dtype === 'fp32');
}

/**
 * Default threads leave one core to the event loop and the other workers: onnxruntime
 * otherwise spins a thread per core and HTTP latency suffers while transcribing.
 */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** transformers.js dtype: one for the whole model, or one per part (`{ encoder_model: "fp32", … }`). */
export type Dtype = AsrOptions['dtype'];
