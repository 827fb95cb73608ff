/**
 * What an OpenAI-sized embeddings answer costs the event loop: 2048 rows of 384 float32 values
 * (random, unit scale) serialised as OpenAI's float JSON in one JSON.stringify, as base64 rows,
 * and one slice of 64 rows (what json-array-stream.ts writes per turn of the event loop).
 *
 *   node --import tsx scripts/bench/embeddings-json.ts
 */
import { loadavg } from 'node:os';

const rows = Array.from({ length: 2048 }, () => Float32Array.from({ length: 384 }, () => Math.random() * 0.2 - 0.1));
const shape = (vector: Float32Array, index: number) => ({ object: 'embedding', index, embedding: Array.from(vector) });

const timed = (what: string, run: () => unknown) => {
  const started = performance.now();
  const result = run();
  console.log(`${what}: ${(performance.now() - started).toFixed(1)} ms${typeof result === 'number' ? ` (${(result / 1e6).toFixed(1)} MB)` : ''}`);
};
timed('whole answer, JSON.stringify once', () => JSON.stringify({ object: 'list', data: rows.map(shape) }).length);
timed('every row as base64', () => rows.map((vector) => Buffer.from(vector.buffer).toString('base64')).join('').length);
timed(
  'one slice of 64 rows',
  () =>
    rows
      .slice(0, 64)
      .map((vector, index) => JSON.stringify(shape(vector, index)))
      .join(',').length,
);
console.log(`load average ${loadavg()[0]!.toFixed(2)}`);
