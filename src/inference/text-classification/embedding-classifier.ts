/**
 * Engine `embedding-classifier`: classification by similarity on a sentence-embedding model, no
 * trained head. Each label is described by one or more prototype sentences (manifest
 * `options.labels[].descriptions`); their embeddings are averaged into one direction per label at
 * load. A query's confidence for a label is the softmax, at `options.temperature` (default 0.05),
 * of its cosine similarities to those directions: single-label, summing to 1.
 *
 * With `options.head` (a linear head trained offline, see linear-head.ts) the manifest labels are
 * scored by softmax(W·e + b) instead, and their descriptions are not embedded; prototype
 * similarity stays the default path.
 *
 * A request may send its own `labels`; each is then described by its own name (always by
 * prototype similarity: a head only knows the labels it was trained for).
 */
import { ValidationError } from '../../errors.js';
import { defineEngine } from '../engine.js';
import { ManifestError } from '../manifest.js';
import type { Classifier } from '../types.js';
import { EmbeddingClassifierOptions, describeLabels, embeddingRule, labelSpecs } from './classifier-options.js';
import { softmax, sortedLabels } from './label-scores.js';
import { weightsDir, weightsInstalled } from '../sentence-encoder/load-transformers-model.js';
import { headConfidences, headWidth, linearHead } from './linear-head.js';
import { centroid, dot } from '../sentence-encoder/sentence-embedder.js';
import { acquireSentenceEmbedder } from '../sentence-encoder/shared-embedders.js';

/** Request-supplied label names whose embeddings are kept, so repeated label sets cost nothing. */
const LABEL_CACHE_SIZE = 1024;

interface Prototype {
  label: string;
  direction: Float32Array;
}

export const embeddingClassifier = defineEngine({
  tasks: ['text-classification'],
  options: EmbeddingClassifierOptions,
  rule: embeddingRule,
  isInstalled: weightsInstalled,
  filesDir: (_entry, context, options) => weightsDir(options, context),

  describe(_entry, options) {
    const labels = describeLabels(options);
    return { ...(labels ? { labels } : {}), multi_label: false, accepts_labels: true };
  },

  async load(entry, context, options): Promise<Classifier> {
    const { temperature } = options;
    const specs = labelSpecs(options) ?? [];
    const head = linearHead(options.head);
    // Entries on the same base model share one embedder (shared-embedders.ts); dispose releases ours.
    const lease = await acquireSentenceEmbedder(entry.id, options, context);
    const embedder = lease.value;

    // With a head, one label name is embedded only to check the head fits this model's width.
    const texts = head ? specs.slice(0, 1).map((spec) => spec.label) : specs.flatMap((spec) => spec.descriptions);
    const vectors = await embedder.embedAll(texts).catch(async (error: unknown) => {
      await lease.release();
      throw error;
    });
    if (head && vectors[0] && vectors[0].length !== headWidth(head)) {
      await lease.release();
      throw new ManifestError(`model "${entry.id}": options.head expects ${headWidth(head)}-value embeddings, the model gives ${vectors[0].length}`);
    }
    const defaults: Prototype[] = [];
    let next = 0;
    for (const spec of head ? [] : specs) {
      defaults.push({ label: spec.label, direction: centroid(vectors.slice(next, (next += spec.descriptions.length))) });
    }

    const labelCache = new Map<string, Float32Array>();
    const requestPrototypes = async (labels: readonly string[], signal: AbortSignal | undefined): Promise<Prototype[]> =>
      Promise.all(
        [...new Set(labels)].map(async (label) => {
          let direction = labelCache.get(label);
          if (!direction) {
            direction = await embedder.embed(label, signal);
            if (labelCache.size >= LABEL_CACHE_SIZE) labelCache.delete(labelCache.keys().next().value as string);
            labelCache.set(label, direction);
          }
          return { label, direction };
        }),
      );

    return {
      maxInputTokens: embedder.maxInputTokens,
      async classify(text, options = {}) {
        const { signal } = options;
        if (head && !options.labels) {
          return sortedLabels(
            specs.map((spec) => spec.label),
            headConfidences(head, await embedder.embed(text, signal)),
          );
        }
        const prototypesPromise = options.labels ? requestPrototypes(options.labels, signal) : Promise.resolve(defaults);
        const [query, prototypes] = await Promise.all([embedder.embed(text, signal), prototypesPromise]);
        if (prototypes.length === 0) throw new ValidationError(`Model "${entry.id}" has no default labels: send "labels"`);
        const similarities = prototypes.map((prototype) => dot(query, prototype.direction));
        return sortedLabels(
          prototypes.map((p) => p.label),
          softmax(similarities, temperature),
        );
      },
      dispose: () => lease.release(),
    };
  },
});
