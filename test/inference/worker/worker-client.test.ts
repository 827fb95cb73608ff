import { expect } from 'chai';
import { AppError, UndecodableAudioError } from '../../../src/errors.js';
import { WorkerClient, workerModuleUrl } from '../../../src/inference/worker/worker-client.js';

const echoWorker = workerModuleUrl(import.meta.url, './echo-worker');

describe('WorkerClient', () => {
  let client: WorkerClient;
  before(async () => {
    client = await WorkerClient.spawn(echoWorker, { init: { scale: 2 }, name: 'echo' });
  });
  after(() => client.dispose());

  it('calls a worker method and returns its result', async () => {
    expect(await client.call('echo', { hello: ['world'] })).to.deep.equal({ hello: ['world'] });
  });

  it('moves transferred Float32Array buffers both ways', async () => {
    const samples = new Float32Array([0.25, -0.5, 1]);
    const result = await client.call<{ samples: Float32Array; receivedBytes: number }>('scale', samples, { transfer: [samples.buffer] });
    expect(samples.byteLength, 'sent buffer is detached').to.equal(0);
    expect(result.receivedBytes).to.equal(12);
    expect([...result.samples]).to.deep.equal([0.5, -1, 2]);
  });

  it('rejects a call that sends a buffer an earlier call already moved, instead of never answering', async () => {
    const samples = new Float32Array([1, 2]);
    await client.call('scale', samples, { transfer: [samples.buffer] });
    const error = await client.call('scale', samples, { transfer: [samples.buffer] }).catch((caught: unknown) => caught);
    expect((error as Error).message).to.match(/detached/);
    expect(await client.call('echo', 'still answering')).to.equal('still answering');
  });

  it('matches concurrent responses to their requests by id', async () => {
    const results = await Promise.all([client.call('slow', 60), client.call('slow', 5), client.call('echo', 'x')]);
    expect(results).to.deep.equal([60, 5, 'x']);
  });

  it('re-throws AppErrors from the worker with their class, status and code', async () => {
    const error = await client.call('failTyped').catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(UndecodableAudioError);
    expect(error).to.be.instanceOf(AppError);
    expect(error).to.include({ status: 400, code: 'undecodable_audio', expose: true, name: 'UndecodableAudioError' });
    expect((error as Error).message).to.equal('could not decode audio: bad bytes');
  });

  it('re-throws an AppError subclass unknown to src/errors.ts as an AppError with its status and code', async () => {
    const error = await client.call('failLocal').catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(AppError);
    expect(error).to.include({ status: 413, code: 'payload_too_large', message: 'too long here' });
  });

  it('re-throws other errors as plain Errors (a generic 500 at the edge)', async () => {
    const error = await client.call('failPlain').catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(AppError);
    expect((error as Error).message).to.equal('boom');
  });

  it('rejects an unknown method', async () => {
    const error = await client.call('nope').catch((caught: unknown) => caught);
    expect((error as Error).message).to.match(/no method "nope"/);
  });

  it('rejects spawn with the setup error', async () => {
    const error = await WorkerClient.spawn(echoWorker, { init: { scale: 1, failSetup: true } }).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(UndecodableAudioError);
  });

  it('rejects in-flight and later calls after dispose', async () => {
    const other = await WorkerClient.spawn(echoWorker, { init: { scale: 1 } });
    const inFlight = other.call('slow', 5_000).catch((caught: unknown) => caught);
    await other.dispose();
    expect(((await inFlight) as Error).message).to.match(/disposed/);
    expect(other.alive).to.equal(false);
    const later = await other.call('echo', 1).catch((caught: unknown) => caught);
    expect((later as Error).message).to.match(/disposed/);
  });

  it('rejects in-flight and later calls, naming the exit code, when the worker thread dies', async () => {
    const other = await WorkerClient.spawn(echoWorker, { init: { scale: 1 }, name: 'doomed' });
    const inFlight = other.call('slow', 5_000).catch((caught: unknown) => caught);
    const exit = await other.call('exit', 7).catch((caught: unknown) => caught);
    expect((exit as Error).message).to.equal('doomed worker exited (code 7)');
    expect(((await inFlight) as Error).message).to.equal('doomed worker exited (code 7)');
    expect(other.alive).to.equal(false);
    expect(((await other.call('echo', 1).catch((caught: unknown) => caught)) as Error).message).to.match(/exited/);
    await other.dispose();
  });

  describe('cancellation through an AbortSignal', () => {
    interface Seen {
      calls: number;
      cancelled: number;
      started: string[];
    }
    let worker: WorkerClient;
    beforeEach(async () => {
      worker = await WorkerClient.spawn(echoWorker, { init: { scale: 1 }, name: 'cancellable' });
    });
    afterEach(() => worker.dispose());

    it("rejects at once with the signal's reason and aborts the call's signal inside the worker", async () => {
      const controller = new AbortController();
      const call = worker.call('untilCancelled', undefined, { signal: controller.signal }).catch((caught: unknown) => caught);
      await eventually(async () => (await worker.call<Seen>('seen')).calls === 1);
      const reason = new Error('client went away');
      const abortedAt = Date.now();
      controller.abort(reason);
      expect(await call).to.equal(reason);
      expect(Date.now() - abortedAt).to.be.below(1000);
      await eventually(async () => (await worker.call<Seen>('seen')).cancelled === 1);
    });

    it('never sends a call whose signal has already aborted', async () => {
      const reason = new Error('gone before the call');
      const error = await worker.call('untilCancelled', undefined, { signal: AbortSignal.abort(reason) }).catch((caught: unknown) => caught);
      expect(error).to.equal(reason);
      expect((await worker.call<Seen>('seen')).calls).to.equal(0);
    });

    it('skips a queued job that was cancelled, and the jobs around it still answer', async () => {
      const controller = new AbortController();
      const first = worker.call('queued', { label: 'first', ms: 150 });
      const second = worker.call('queued', { label: 'second', ms: 150 }, { signal: controller.signal }).catch((caught: unknown) => caught);
      const third = worker.call('queued', { label: 'third', ms: 10 });
      await new Promise((resolve) => setTimeout(resolve, 30)); // the first job is running, the others wait
      controller.abort(new Error('second gave up'));
      expect(((await second) as Error).message).to.equal('second gave up');
      expect(await Promise.all([first, third])).to.deep.equal(['first', 'third']);
      expect((await worker.call<Seen>('seen')).started).to.deep.equal(['first', 'third']);
    });

    it('ignores an abort after the answer arrived, and keeps serving', async () => {
      const controller = new AbortController();
      expect(await worker.call('echo', 'done', { signal: controller.signal })).to.equal('done');
      controller.abort();
      expect(await worker.call('echo', 'next')).to.equal('next');
      expect((await worker.call<Seen>('seen')).cancelled).to.equal(0);
    });
  });
});

/** Polls `condition` every 10 ms until it holds, failing after `timeoutMs`. */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
