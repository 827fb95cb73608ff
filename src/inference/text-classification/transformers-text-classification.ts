/**
 * Engine `transformers-text-classification`: a fine-tuned sequence classifier with a fixed label
 * set (DistilBERT SST-2, toxic-bert, multilingual sentiment…). Single-label models answer softmax
 * confidences that sum to 1; multi-label models answer an independent sigmoid per label.
 */
import { ValidationError } from '../../errors.js';
import type { Engine } from '../engine.js';
import type { Classifier, Label } from '../types.js';
import { ClassifierOptionError, batchOptions, describeLabels, labelSpecs, optionalBoolean } from './classifier-options.js';
import { sortedLabels } from './label-scores.js';
import { loadTransformersModel, weightsInstalled } from './load-transformers-model.js';
import { MicroBatcher } from './micro-batcher.js';
import { logitRows, runModel } from './model-io.js';
import { confidences } from './sequence-scores.js';

interface ModelConfigLabels {
  id2label?: Record<string, string>;
  problem_type?: string;
}

export const transformersTextClassification: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  isInstalled: weightsInstalled,

  describe(entry) {
    const labels = describeLabels(entry);
    return { ...(labels ? { labels } : {}), multi_label: entry.options?.multiLabel === true };
  },

  async load(entry, context): Promise<Classifier> {
    const { tokenizer, model } = await loadTransformersModel(entry, context, 'sequence-classification');
    const config = model.config as unknown as ModelConfigLabels;
    const labels = labelNames(config);
    const configMultiLabel = config.problem_type === 'multi_label_classification';
    const multiLabel = optionalBoolean(entry, 'multiLabel') ?? false;
    // GET /v1/models answers from the manifest without loading, so the manifest must agree with config.json.
    if (configMultiLabel && !multiLabel) {
      throw new ClassifierOptionError(`config.json of "${entry.id}" is multi-label; set options.multiLabel: true`);
    }
    const declared = labelSpecs(entry)?.map((spec) => spec.label);
    if (declared && declared.join('\n') !== labels.join('\n')) {
      throw new ClassifierOptionError(
        `options.labels of "${entry.id}" (${declared.join(', ')}) differ from config.json id2label (${labels.join(', ')})`,
      );
    }

    const batcher = new MicroBatcher<string, Label[]>(async (texts) => {
      const inputs = tokenizer(texts, { padding: true, truncation: true });
      const logits = logitRows(await runModel(model, inputs), 'logits');
      return logits.map((row) => sortedLabels(labels, confidences(row, multiLabel)));
    }, batchOptions(entry));

    return {
      async classify(text, options = {}) {
        if (options.labels) {
          throw new ValidationError(`Model "${entry.id}" has a fixed label set; "labels" is only for zero-shot and embedding models`);
        }
        return batcher.submit(text);
      },
      async dispose() {
        await model.dispose();
      },
    };
  },
};

function labelNames(config: ModelConfigLabels): string[] {
  const entries = Object.entries(config.id2label ?? {}).sort(([a], [b]) => Number(a) - Number(b));
  if (entries.length === 0) throw new ClassifierOptionError('config.json has no id2label');
  return entries.map(([, name]) => name);
}
