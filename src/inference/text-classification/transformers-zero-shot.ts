/**
 * Engine `transformers-zero-shot`: an NLI model scores "premise = query, hypothesis = template
 * filled with a label" for each candidate label. Labels come from the request, or else from the
 * manifest, so {model, query} alone works for entries that define a label set.
 *
 * Single-label: softmax of the entailment logits across labels (sums to 1). Multi-label: for each
 * label on its own, softmax of [contradiction, entailment] (independent, like a sigmoid). This is
 * the Hugging Face zero-shot pipeline's scoring, but every (query, label) pair of every request in
 * a micro-batch goes through one padded forward pass instead of one pass per pair.
 */
import { ValidationError } from '../../errors.js';
import { defineEngine } from '../engine.js';
import type { Classifier, Label } from '../types.js';
import { ZeroShotOptions, describeLabels, labelSpecs, labelsRule } from './classifier-options.js';
import { batchOptions } from '../sentence-encoder/encoder-options.js';
import { softmax, sortedLabels } from './label-scores.js';
import { startBatchModel, weightsDir, weightsInstalled } from '../sentence-encoder/load-transformers-model.js';
import { MicroBatcher } from '../sentence-encoder/micro-batcher.js';

interface Candidate {
  label: string;
  /** Text put into the hypothesis template (the manifest description, or the label itself). */
  fill: string;
}

interface Request {
  text: string;
  candidates: Candidate[];
}

export const transformersZeroShot = defineEngine({
  tasks: ['text-classification'],
  options: ZeroShotOptions,
  rule: labelsRule,
  isInstalled: weightsInstalled,
  filesDir: (_entry, context, options) => weightsDir(options, context),

  describe(_entry, options) {
    const labels = describeLabels(options);
    return { ...(labels ? { labels } : {}), multi_label: options.multiLabel, accepts_labels: true };
  },

  async load(entry, context, options): Promise<Classifier> {
    const { hypothesisTemplate: template, multiLabel } = options;
    const defaults = labelSpecs(options)?.map((spec) => ({ label: spec.label, fill: spec.descriptions[0] as string }));
    const model = await startBatchModel(entry.id, options, context, 'sequence-classification');
    let ids: { entailment: number; contradiction: number };
    try {
      ids = nliIds(model.facts.label2id);
    } catch (error) {
      await model.dispose();
      throw error;
    }
    const { entailment, contradiction } = ids;

    const batcher = new MicroBatcher<Request, Label[]>(async (requests) => {
      const premises = requests.flatMap((request) => request.candidates.map(() => request.text));
      const hypotheses = requests.flatMap((request) => request.candidates.map((c) => template.replace('{}', c.fill)));
      const rows = await model.forward(premises, hypotheses);
      let next = 0;
      return requests.map(({ candidates }) => {
        const pairs = rows.slice(next, (next += candidates.length));
        const entail = pairs.map((row) => row[entailment] as number);
        // With one label a softmax across labels would always say 1: score it on its own instead.
        const scores =
          multiLabel || candidates.length === 1
            ? pairs.map((row) => softmax([row[contradiction] as number, row[entailment] as number])[1] as number)
            : softmax(entail);
        return sortedLabels(
          candidates.map((c) => c.label),
          scores,
        );
      });
    }, batchOptions(options));

    return {
      async classify(text, options = {}) {
        const candidates = options.labels ? uniqueCandidates(options.labels) : defaults;
        if (!candidates) throw new ValidationError(`Model "${entry.id}" has no default labels: send "labels"`);
        return batcher.submit({ text, candidates }, { signal: options.signal });
      },
      dispose: () => model.dispose(),
    };
  },
});

function uniqueCandidates(labels: readonly string[]): Candidate[] {
  return [...new Set(labels)].map((label) => ({ label, fill: label }));
}

function nliIds(label2id: Record<string, number> | undefined): { entailment: number; contradiction: number } {
  const ids = Object.fromEntries(Object.entries(label2id ?? {}).map(([name, id]) => [name.toLowerCase(), id]));
  const entailment = ids.entailment;
  const contradiction = ids.contradiction ?? ids.not_entailment;
  if (entailment === undefined || contradiction === undefined) {
    throw new Error('config.json label2id must name "entailment" and "contradiction" (an NLI model)');
  }
  return { entailment, contradiction };
}
