/**
 * Manifest `options` of the classification engines (TypeBox schemas, checked at start-up), and
 * what the engines derive from them: label specs, micro-batching and the worker layout.
 */
import { availableParallelism } from 'node:os';
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { DTYPES } from '../dtype.js';
import { stringEnum, type OptionsRule } from '../engine-options.js';
import type { MicroBatcherOptions } from './micro-batcher.js';

/** A label and the sentences that describe it (embedding prototypes, or NLI hypotheses). */
export interface LabelSpec {
  label: string;
  descriptions: string[];
}

const Text = Type.String({ pattern: '\\S' });

/** A label name, or `{label, description?, descriptions?}`; a label without a description is described by its name. */
const LabelOption = Type.Union(
  [
    Type.String({ minLength: 1 }),
    Type.Object(
      { label: Type.String({ minLength: 1 }), description: Type.Optional(Text), descriptions: Type.Optional(Type.Array(Text)) },
      { additionalProperties: false },
    ),
  ],
  { description: 'a label name or {label, description?, descriptions?} with non-blank descriptions' },
);

/** maxWaitMs 0: measured here, a 2 ms wait cost ~20 % at one client and bought nothing at 8 or 32. */
export const sharedOptions = {
  /** Picks the weight file, e.g. q8 → onnx/model_quantized.onnx as hub repos ship it. */
  dtype: stringEnum(DTYPES, { default: 'fp32' }),
  /** Another installed model's folder holding the weights (minilm-sentiment and minilm-topics share MiniLM). */
  baseModel: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*$' })),
  labels: Type.Optional(Type.Array(LabelOption, { minItems: 1 })),
  /** Model workers (each its own ONNX session) and intra-op threads each; see workerLayout. */
  workers: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  threads: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  /** Intra-op threads of the extra session for lone requests (BatchModel); 0 turns it off. See workerLayout. */
  soloThreads: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  maxBatchSize: Type.Integer({ minimum: 1, maximum: 512, default: 32 }),
  maxWaitMs: Type.Number({ minimum: 0, maximum: 1000, default: 0 }),
} satisfies TProperties;

const multiLabel = Type.Boolean({ default: false });

export const TextClassificationOptions = Type.Object({ ...sharedOptions, multiLabel }, { additionalProperties: false });

export const ZeroShotOptions = Type.Object(
  { ...sharedOptions, multiLabel, hypothesisTemplate: Type.String({ pattern: '\\{\\}', default: 'This example is {}.' }) },
  { additionalProperties: false },
);

export const EmbeddingClassifierOptions = Type.Object(
  {
    ...sharedOptions,
    /** Softmax temperature over cosine similarities. */
    temperature: Type.Number({ minimum: 1e-4, maximum: 100, default: 0.05 }),
    /** A linear head trained offline (linear-head.ts): one weight row and one bias per label. */
    head: Type.Optional(
      Type.Object(
        {
          weights: Type.Array(Type.Array(Type.Number(), { minItems: 1 }), { minItems: 1 }),
          bias: Type.Array(Type.Number(), { minItems: 1 }),
          /** Where the numbers came from (documentation only). */
          source: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ClassifierOptions = Static<typeof TextClassificationOptions>;
export type ZeroShotOptions = Static<typeof ZeroShotOptions>;
export type EmbeddingClassifierOptions = Static<typeof EmbeddingClassifierOptions>;
/** What every classification engine's options have in common. */
export type SharedClassifierOptions = Pick<ClassifierOptions, keyof typeof sharedOptions>;

export const labelsRule: OptionsRule<SharedClassifierOptions> = (options) => {
  const specs = labelSpecs(options);
  if (specs && new Set(specs.map((spec) => spec.label)).size !== specs.length) return 'options.labels must be free of duplicates';
  return undefined;
};

export const embeddingRule: OptionsRule<EmbeddingClassifierOptions> = (options) => {
  const problem = labelsRule(options);
  if (problem || !options.head) return problem;
  const labelCount = options.labels?.length ?? 0;
  const { weights, bias } = options.head;
  if (weights.length !== labelCount || bias.length !== labelCount) {
    return `options.head must have one weight row and one bias per label (${labelCount} labels)`;
  }
  if (new Set(weights.map((row) => row.length)).size !== 1) return 'options.head.weights rows must all have the same length';
  return undefined;
};

/** `options.labels` as label specs; undefined when the manifest has none. */
export function labelSpecs(options: SharedClassifierOptions): LabelSpec[] | undefined {
  return options.labels?.map((item): LabelSpec => {
    if (typeof item === 'string') return { label: item, descriptions: [item] };
    const all = [...(item.description !== undefined ? [item.description] : []), ...(item.descriptions ?? [])];
    return { label: item.label, descriptions: all.length > 0 ? all : [item.label] };
  });
}

/** Label names for GET /v1/models. */
export function describeLabels(options: SharedClassifierOptions): string[] | undefined {
  return labelSpecs(options)?.map((spec) => spec.label);
}

export function batchOptions(options: SharedClassifierOptions): Required<MicroBatcherOptions> {
  return { maxBatchSize: options.maxBatchSize, maxWaitMs: options.maxWaitMs, maxInFlight: workerLayout(options).workers };
}

/**
 * How many model workers (each with its own ONNX session), how many intra-op threads each, and
 * how many threads the solo session for lone requests has (0: none).
 *
 * Measured here on all-MiniLM-L6-v2: two single-threaded sessions fed half-batches each classify
 * ~190 texts/s on 2 cores, one two-threaded session ~110-140 texts/s (small GEMMs and the
 * attention op parallelise poorly inside one run). But a lone text on one thread leaves the other
 * core idle (fastest of 600 runs of one short text: ~4.4 ms on one thread against ~2.9 ms on two), hence the solo session, spanning every core, when
 * the batch sessions do not already. Defaults: 2 workers (1 on a single core), the cores split
 * between them, a solo session on all cores. Options `workers`, `threads` and `soloThreads` override.
 */
export function workerLayout(
  options: Pick<SharedClassifierOptions, 'workers' | 'threads' | 'soloThreads'>,
  cores = availableParallelism(),
): { workers: number; threads: number; soloThreads: number } {
  const workers = options.workers ?? Math.min(2, cores);
  const threads = options.threads ?? Math.max(1, Math.floor(cores / workers));
  return { workers, threads, soloThreads: options.soloThreads ?? (cores > threads ? cores : 0) };
}
