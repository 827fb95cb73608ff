/**
 * Worker thread that owns one tokenizer and ONNX model. Tokenisation, the forward pass
 * (onnxruntime-node runs it synchronously on the calling thread) and pooling all happen here, so
 * the HTTP event loop never waits on them. Each call is one micro-batch from the main thread,
 * split into length buckets to keep padding small.
 */
import { configureRuntime } from '../runtime.js';
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';
import type { BatchModelInit, ForwardRequest, ForwardResult, ModelFacts } from './batch-model-protocol.js';
import { lengthBuckets } from './length-buckets.js';
import { loadTransformersModel } from './load-transformers-model.js';
import { logitRows, meanPooledRows, runModel } from './model-io.js';

/** Up to 25 % of a bucket's tokens may be padding. */
const MAX_PADDING_RATIO = 1.25;

/** Rows (which may be views into model output buffers) copied into one transferable buffer. */
function pack(rows: Float32Array[]): ForwardResult {
  const width = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * width);
  rows.forEach((row, index) => data.set(row, index * width));
  return { data, width };
}

serveWorker<BatchModelInit>(async (init) => {
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const { tokenizer, model } = await loadTransformersModel(init.dir, init.head, init.dtype, init.threads);
  const config = model.config as unknown as ModelFacts;
  const facts: ModelFacts = { id2label: config.id2label, label2id: config.label2id, problem_type: config.problem_type };

  const encode = (texts: string[], pairs: string[] | undefined) =>
    tokenizer(texts, { ...(pairs ? { text_pair: pairs } : {}), padding: true, truncation: true });

  const forwardBucket = async (texts: string[], pairs: string[] | undefined): Promise<Float32Array[]> => {
    const inputs = encode(texts, pairs);
    const outputs = await runModel(model, inputs);
    if (init.head === 'sequence-classification') return logitRows(outputs, 'logits');
    const hidden = outputs.last_hidden_state;
    if (!hidden) throw new Error('feature-extraction model has no last_hidden_state output');
    return meanPooledRows(hidden, inputs.attention_mask);
  };

  const forwardBuckets = async (texts: string[], pairs: string[] | undefined): Promise<Float32Array[]> => {
    const lengths = texts.map((text, index) =>
      Math.min(tokenizer.encode(text, { ...(pairs ? { text_pair: pairs[index] } : {}) }).length, tokenizer.model_max_length ?? Infinity),
    );
    const rows: Float32Array[] = new Array(texts.length);
    for (const bucket of lengthBuckets(lengths, { maxPaddingRatio: MAX_PADDING_RATIO, maxBucketSize: init.maxBatchSize })) {
      const out = await forwardBucket(
        bucket.map((index) => texts[index] as string),
        pairs && bucket.map((index) => pairs[index] as string),
      );
      bucket.forEach((index, position) => (rows[index] = out[position] as Float32Array));
    }
    return rows;
  };

  return {
    facts: () => facts,
    async forward({ texts, pairs }: ForwardRequest) {
      // A lone text needs no length sorting (and no second tokenisation to measure it).
      const rows = texts.length === 1 ? await forwardBucket(texts, pairs) : await forwardBuckets(texts, pairs);
      const result = pack(rows);
      return withTransfer(result, [result.data.buffer as ArrayBuffer]);
    },
    async dispose() {
      await model.dispose();
    },
  };
});
