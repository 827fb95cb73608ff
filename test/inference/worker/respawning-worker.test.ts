import { expect } from 'chai';
import { InferenceFailedError } from '../../../src/errors.js';
import { RespawningWorker } from '../../../src/inference/worker/respawning-worker.js';
import { WorkerClient, workerModuleUrl } from '../../../src/inference/worker/worker-client.js';

const echoWorker = workerModuleUrl(import.meta.url, './echo-worker');
const spawn = () => WorkerClient.spawn(echoWorker, { init: { scale: 1 }, name: 'echo' });

describe('RespawningWorker', () => {
  it('fails the calls of a worker that died with 503 inference_failed, then answers from a fresh one', async () => {
    let spawned = 0;
    const worker = new RespawningWorker(await spawn(), 'echo-model', () => (spawned++, spawn()));
    const inFlight = worker.call('slow', 5_000).catch((caught: unknown) => caught);
    const exit = await worker.call('exit', 3).catch((caught: unknown) => caught);
    for (const error of [exit, await inFlight]) {
      expect(error).to.be.instanceOf(InferenceFailedError);
      expect((error as Error).message).to.equal('Model "echo-model" failed while answering: echo worker exited (code 3)');
    }
    expect(await worker.call('echo', 'again')).to.equal('again');
    expect(spawned).to.equal(1);
    await worker.dispose();
  });

  it('passes errors of a living worker through unchanged', async () => {
    const worker = new RespawningWorker(await spawn(), 'echo-model', spawn);
    const error = await worker.call('failPlain').catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(InferenceFailedError);
    expect((error as Error).message).to.equal('boom');
    await worker.dispose();
  });

  it('refuses calls once disposed instead of starting a new worker', async () => {
    let spawned = 0;
    const worker = new RespawningWorker(await spawn(), 'echo-model', () => (spawned++, spawn()));
    await worker.dispose();
    const error = await worker.call('echo', 1).catch((caught: unknown) => caught);
    expect((error as Error).message).to.equal('Model "echo-model" was unloaded');
    expect(spawned).to.equal(0);
  });

  it("passes the signal through: an aborted call rejects with the signal's reason, not inference_failed", async () => {
    const worker = new RespawningWorker(await spawn(), 'echo-model', spawn);
    const controller = new AbortController();
    const call = worker.call('slow', 5_000, { signal: controller.signal }).catch((caught: unknown) => caught);
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 20);
    expect(await call).to.equal(reason);
    expect(await worker.call('echo', 'still here')).to.equal('still here');
    await worker.dispose();
  });
});
