/**
 * Stands in for batch-model-worker in batch-model.test.ts: answers each text with one row
 * holding its length and the session's thread count (0 when unset), and ends its thread when a
 * batch contains "crash", as an out-of-memory abort in ONNX Runtime would.
 */
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import type { BatchModelApi, BatchModelInit } from '../../../src/inference/sentence-encoder/batch-model-protocol.js';

serveWorker<BatchModelApi, BatchModelInit>((init) => ({
  facts: () => ({}),
  forward({ texts }) {
    if (texts.includes('crash')) process.exit(9);
    return { data: Float32Array.from(texts.flatMap((text) => [text.length, init.threads ?? 0])), width: 2 };
  },
  dispose: () => undefined,
}));
