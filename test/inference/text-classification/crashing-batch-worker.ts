/**
 * Stands in for batch-model-worker in batch-model.test.ts: answers each text with one row
 * holding its length, and ends its thread when a batch contains "crash", as an out-of-memory
 * abort in ONNX Runtime would.
 */
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import type { BatchModelApi, BatchModelInit } from '../../../src/inference/text-classification/batch-model-protocol.js';

serveWorker<BatchModelApi, BatchModelInit>(() => ({
  facts: () => ({}),
  forward({ texts }) {
    if (texts.includes('crash')) process.exit(9);
    return { data: Float32Array.from(texts, (text) => text.length), width: 1 };
  },
  dispose: () => undefined,
}));
