/**
 * The seam's compile-time guarantees. `npm run typecheck` checks this file: each
 * `@ts-expect-error` line must fail to compile, or typecheck fails (the directive is unused).
 * The functions are never called; mocha only sees the one test below.
 */
import { expect } from 'chai';
import type { ModelWorker } from '../../../src/inference/worker/model-worker.js';
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import type { WorkerClient } from '../../../src/inference/worker/worker-client.js';
import type { EchoApi, EchoInit } from './echo-api.js';

async function clientSide(worker: ModelWorker<EchoApi>, client: WorkerClient<EchoApi>): Promise<void> {
  const scaled: { samples: Float32Array; receivedBytes: number } = await worker.call('scale', new Float32Array(1));
  const slept: number = await client.call('slow', 5, { timeoutMs: 100 });
  await worker.call('seen');
  void [scaled, slept];

  // @ts-expect-error renamed method: "echoo" is not a method of EchoApi
  await worker.call('echoo', 1);
  // @ts-expect-error wrong payload: "slow" takes milliseconds as a number
  await worker.call('slow', '5');
  // @ts-expect-error missing payload: "queued" requires its job
  await worker.call('queued');
  // @ts-expect-error wrong result: "slow" answers a number
  const wrong: string = await worker.call('slow', 5);
  // @ts-expect-error the same checks hold on a bare WorkerClient
  await client.call('nope');
  // @ts-expect-error "dispose" is reserved for the seam, not callable as a method
  await worker.call('dispose');
  await worker.call('countTo', 2, { onProgress: (count: number) => void count });
  // @ts-expect-error a progress listener of the wrong type: "countTo" reports numbers
  await worker.call('countTo', 2, { onProgress: (count: string) => void count });
  void wrong;
}

function workerSide(): void {
  // @ts-expect-error a worker missing a method of its Api (here: all but echo) does not compile
  serveWorker<EchoApi, EchoInit>(() => ({ echo: (value) => value }));

  serveWorker<{ double(n: number): Promise<number> }>(() => ({
    // @ts-expect-error a method answering the wrong type does not compile
    double: (n) => `${n * 2}`,
  }));

  serveWorker<{ double(n: number): Promise<number> }>(() => ({
    // @ts-expect-error a method reading its payload as the wrong type does not compile
    double: (n: string) => n.length,
  }));
}

describe('worker seam types', () => {
  it('are checked by npm run typecheck (this file holds the @ts-expect-error cases)', () => {
    expect([clientSide, workerSide]).to.have.length(2);
  });
});
