/**
 * Manifest `options` of the classification engines (TypeBox schemas, checked at start-up): the
 * sentence encoder's options plus labels, and each engine's own; and the label specs the engines
 * derive from them.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import type { OptionsRule } from '../engine-options.js';
import { encoderOptions } from '../sentence-encoder/encoder-options.js';

/** A label and the sentences that describe it (embedding prototypes, or NLI hypotheses). */
interface LabelSpec {
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

/** The encoder's options (sentence-encoder/encoder-options.ts) and the labels every classifier reads. */
const sharedOptions = {
  ...encoderOptions,
  labels: Type.Optional(Type.Array(LabelOption, { minItems: 1 })),
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
type SharedClassifierOptions = Pick<ClassifierOptions, keyof typeof sharedOptions>;

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
