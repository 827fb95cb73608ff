/** What /metrics shows of the Batch API: lines done by outcome, lines waiting, batches by status. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { BatchStore } from './batch-store.js';
import { BATCH_STATUSES } from './batch-shapes.js';

export interface BatchObserver {
  lineDone(outcome: 'completed' | 'failed', count?: number): void;
}

export function batchMetrics(registry: Registry, store: BatchStore): BatchObserver {
  const lines = new Counter({
    name: 'batch_lines_total',
    help: 'Batch lines this process ran to an answer, by outcome (completed: a 2xx answer; failed: any other).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Read from the database at each scrape: replicas share the queue, so every one reports all of it.
  let depth: Promise<Awaited<ReturnType<BatchStore['depth']>>> | undefined;
  const read = () => (depth ??= store.depth().finally(() => setImmediate(() => (depth = undefined))));
  new Gauge({
    name: 'batch_queue_lines',
    help: 'Batch lines waiting to run or running, across every process sharing the database.',
    registers: [registry],
    async collect() {
      this.set((await read()).lines);
    },
  });
  new Gauge({
    name: 'batches',
    help: 'Batches by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const { batches } = await read();
      for (const status of BATCH_STATUSES) this.set({ status }, batches[status] ?? 0);
    },
  });
  return { lineDone: (outcome, count = 1) => lines.inc({ outcome }, count) };
}
