/**
 * Engine `transformers-text-classification`: a fine-tuned sequence classifier with a fixed label
 * set (DistilBERT SST-2, toxic-bert, multilingual sentiment…). Single-label models answer softmax
 * confidences that sum to 1; multi-label models answer an independent sigmoid per label.
 */
import { ValidationError } from '../../errors.js';
import type { Engine } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Classifier, Label } from '../types.js';
import type { BatchModel } from './batch-model.js';
import type { ModelFacts } from './batch-model-protocol.js';
import { ClassifierOptionError, batchOptions, describeLabels, labelSpecs, optionalBoolean } from './classifier-options.js';
import { sortedLabels } from './label-scores.js';
import { startBatchModel, weightsInstalled } from './load-transformers-model.js';
import { MicroBatcher } from './micro-batcher.js';
import { confidences } from './sequence-scores.js';

export const transformersTextClassification: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  isInstalled: weightsInstalled,

  describe(entry) {
    const labels = describeLabels(entry);
    return { ...(labels ? { labels } : {}), multi_label: entry.options?.multiLabel === true };
  },

  async load(entry, context): Promise<Classifier> {
    const model = await startBatchModel(entry, context, 'sequence-classification');
    try {
      return classifierOn(model, entry);
    } catch (error) {
      await model.dispose();
      throw error;
    }
  },
};

function classifierOn(model: BatchModel, entry: ManifestEntry): Classifier {
  const labels = labelNames(model.facts);
  const multiLabel = optionalBoolean(entry, 'multiLabel') ?? false;
  // GET /v1/models answers from the manifest without loading, so the manifest must agree with config.json.
  if (model.facts.problem_type === 'multi_label_classification' && !multiLabel) {
    throw new ClassifierOptionError(`config.json of "${entry.id}" is multi-label; set options.multiLabel: true`);
  }
  const declared = labelSpecs(entry)?.map((spec) => spec.label);
  if (declared && declared.join('\n') !== labels.join('\n')) {
    throw new ClassifierOptionError(
      `options.labels of "${entry.id}" (${declared.join(', ')}) differ from config.json id2label (${labels.join(', ')})`,
    );
  }

  const batcher = new MicroBatcher<string, Label[]>(async (texts) => {
    const logits = await model.forward(texts);
    return logits.map((row) => sortedLabels(labels, confidences(row, multiLabel)));
  }, batchOptions(entry));

  return {
    async classify(text, options = {}) {
      if (options.labels) {
        throw new ValidationError(`Model "${entry.id}" has a fixed label set; "labels" is only for zero-shot and embedding models`);
      }
      return batcher.submit(text, { signal: options.signal });
    },
    dispose: () => model.dispose(),
  };
}

function labelNames(facts: ModelFacts): string[] {
  const entries = Object.entries(facts.id2label ?? {}).sort(([a], [b]) => Number(a) - Number(b));
  if (entries.length === 0) throw new ClassifierOptionError('config.json has no id2label');
  return entries.map(([, name]) => name);
}
