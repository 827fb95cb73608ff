/**
 * Engine `transformers-text-classification`: a fine-tuned sequence classifier with a fixed label
 * set (DistilBERT SST-2, toxic-bert, multilingual sentiment…). Single-label models answer softmax
 * confidences that sum to 1; multi-label models answer an independent sigmoid per label.
 */
import { ValidationError } from '../../errors.js';
import { defineEngine } from '../engine.js';
import { ManifestError } from '../manifest.js';
import type { Classifier, Label } from '../types.js';
import type { BatchModel } from '../sentence-encoder/batch-model.js';
import type { ModelFacts } from '../sentence-encoder/batch-model-protocol.js';
import { TextClassificationOptions, describeLabels, labelsRule, type ClassifierOptions } from './classifier-options.js';
import { batchOptions } from '../sentence-encoder/encoder-options.js';
import { sortedLabels } from './label-scores.js';
import { startBatchModel, weightsDir, weightsInstalled } from '../sentence-encoder/load-transformers-model.js';
import { MicroBatcher } from '../sentence-encoder/micro-batcher.js';
import { confidences } from './sequence-scores.js';

export const transformersTextClassification = defineEngine({
  tasks: ['text-classification'],
  options: TextClassificationOptions,
  rule: labelsRule,
  isInstalled: weightsInstalled,
  filesDir: (_entry, context, options) => weightsDir(options, context),

  describe(_entry, options) {
    const labels = describeLabels(options);
    return { ...(labels ? { labels } : {}), multi_label: options.multiLabel };
  },

  async load(entry, context, options): Promise<Classifier> {
    const model = await startBatchModel(entry.id, options, context, 'sequence-classification');
    try {
      return classifierOn(model, entry.id, options);
    } catch (error) {
      await model.dispose();
      throw error;
    }
  },
});

function classifierOn(model: BatchModel, id: string, options: ClassifierOptions): Classifier {
  const labels = labelNames(model.facts);
  const { multiLabel } = options;
  // GET /v1/models answers from the manifest without loading, so the manifest must agree with config.json.
  if (model.facts.problem_type === 'multi_label_classification' && !multiLabel) {
    throw new ManifestError(`config.json of "${id}" is multi-label; set options.multiLabel: true`);
  }
  const declared = describeLabels(options);
  if (declared && declared.join('\n') !== labels.join('\n')) {
    throw new ManifestError(`options.labels of "${id}" (${declared.join(', ')}) differ from config.json id2label (${labels.join(', ')})`);
  }

  const batcher = new MicroBatcher<string, Label[]>(async (texts) => {
    const logits = await model.forward(texts);
    return logits.map((row) => sortedLabels(labels, confidences(row, multiLabel)));
  }, batchOptions(options));

  return {
    maxInputTokens: model.facts.maxInputTokens,
    async classify(text, request = {}) {
      if (request.labels) {
        throw new ValidationError(`Model "${id}" has a fixed label set; "labels" is only for zero-shot and embedding models`);
      }
      return batcher.submit(text, { signal: request.signal });
    },
    dispose: () => model.dispose(),
  };
}

function labelNames(facts: ModelFacts): string[] {
  const entries = Object.entries(facts.id2label ?? {}).sort(([a], [b]) => Number(a) - Number(b));
  if (entries.length === 0) throw new Error('config.json has no id2label');
  return entries.map(([, name]) => name);
}
