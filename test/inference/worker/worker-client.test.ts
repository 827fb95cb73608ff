import { expect } from 'chai';
import { AppError, UndecodableAudioError } from '../../../src/errors.js';
import { CallTimeoutError, WorkerClient } from '../../../src/inference/worker/worker-client.js';
import { sleep, until } from '../../helpers/until.js';
import { ECHO_WORKER, type EchoApi } from './echo-api.js';

const spawn = (name = 'echo', scale = 1) => WorkerClient.spawn(ECHO_WORKER, { init: { scale }, name, stuckGraceMs: 300 });

describe('WorkerClient', () => {
  let client: WorkerClient<EchoApi>;
  before(async () => {
    client = await spawn('echo', 2);
  });
  after(() => client.dispose());

  it('calls a worker method and returns its result', async () => {
    expect(await client.call('echo', { hello: ['world'] })).to.deep.equal({ hello: ['world'] });
  });

  it('moves transferred Float32Array buffers both ways', async () => {
    const samples = new Float32Array([0.25, -0.5, 1]);
    const result = await client.call('scale', samples, { transfer: [samples.buffer] });
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

  it("delivers a call's progress events in order, before its answer, to that call only", async () => {
    const events: string[] = [];
    const [three, two] = await Promise.all([
      client.call('countTo', 3, { onProgress: (count) => events.push(`a${count}`) }),
      client.call('countTo', 2, { onProgress: (count) => events.push(`b${count}`) }),
      client.call('countTo', 4), // no listener: its events are dropped
    ]);
    expect([three, two]).to.deep.equal([3, 2]);
    expect(events.filter((event) => event.startsWith('a'))).to.deep.equal(['a1', 'a2', 'a3']);
    expect(events.filter((event) => event.startsWith('b'))).to.deep.equal(['b1', 'b2']);
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

  it('rejects an unknown method (a worker older than its Api)', async () => {
    const untyped = client as unknown as WorkerClient<{ nope(): Promise<void> }>;
    const error = await untyped.call('nope').catch((caught: unknown) => caught);
    expect((error as Error).message).to.match(/no method "nope"/);
  });

  it('rejects spawn with the setup error', async () => {
    const error = await WorkerClient.spawn(ECHO_WORKER, { init: { scale: 1, failSetup: true } }).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(UndecodableAudioError);
  });

  it('rejects in-flight and later calls after dispose', async () => {
    const other = await spawn();
    const inFlight = other.call('slow', 5_000).catch((caught: unknown) => caught);
    await other.dispose();
    expect(((await inFlight) as Error).message).to.match(/disposed/);
    expect(other.alive).to.equal(false);
    const later = await other.call('echo', 1).catch((caught: unknown) => caught);
    expect((later as Error).message).to.match(/disposed/);
  });

  it('rejects in-flight and later calls, naming the exit code, when the worker thread dies', async () => {
    const other = await spawn('doomed');
    const inFlight = other.call('slow', 5_000).catch((caught: unknown) => caught);
    const exit = await other.call('exit', 7).catch((caught: unknown) => caught);
    expect((exit as Error).message).to.equal('doomed worker exited (code 7)');
    expect(((await inFlight) as Error).message).to.equal('doomed worker exited (code 7)');
    expect(other.alive).to.equal(false);
    expect(((await other.call('echo', 1).catch((caught: unknown) => caught)) as Error).message).to.match(/exited/);
    await other.dispose();
  });

  it("runs the worker's dispose after its queued jobs, then ends the thread", async () => {
    const other = await spawn();
    const queued = other.call('queued', { label: 'last job', ms: 100 });
    await other.dispose();
    expect(await queued).to.equal('last job');
    expect(other.alive).to.equal(false);
  });

  describe('deadlines', () => {
    it('rejects a call past its timeoutMs with a CallTimeoutError and cancels it in the worker, which keeps serving', async () => {
      const other = await spawn('deadline');
      const error = await other.call('untilCancelled', undefined, { timeoutMs: 50 }).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(CallTimeoutError);
      expect((error as Error).message).to.equal('no answer to "untilCancelled" within 50 ms');
      await until(async () => (await other.call('seen')).cancelled === 1, 'the worker to see the cancel');
      await sleep(400); // past the stuck grace
      expect(other.alive).to.equal(true);
      await other.dispose();
    });

    it('terminates a thread that does not let go of a timed-out call within the grace (stuck in native code)', async () => {
      const other = await spawn('stuck');
      const error = await other.call('block', 2_000, { timeoutMs: 50 }).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(CallTimeoutError);
      await until(() => !other.alive, 'the stuck thread to be terminated', 1_500);
      const later = await other.call('echo', 1).catch((caught: unknown) => caught);
      expect((later as Error).message).to.equal('stuck worker was stuck in "block" past its deadline and was terminated');
    });
  });

  describe('cancellation through an AbortSignal', () => {
    let worker: WorkerClient<EchoApi>;
    beforeEach(async () => {
      worker = await spawn('cancellable');
    });
    afterEach(() => worker.dispose());

    it("rejects at once with the signal's reason and aborts the call's signal inside the worker", async () => {
      const controller = new AbortController();
      const call = worker.call('untilCancelled', undefined, { signal: controller.signal }).catch((caught: unknown) => caught);
      await until(async () => (await worker.call('seen')).calls === 1, 'the call to reach the worker');
      const reason = new Error('client went away');
      const abortedAt = Date.now();
      controller.abort(reason);
      expect(await call).to.equal(reason);
      expect(Date.now() - abortedAt).to.be.below(1000);
      await until(async () => (await worker.call('seen')).cancelled === 1, 'the worker to see the cancel');
    });

    it('never sends a call whose signal has already aborted', async () => {
      const reason = new Error('gone before the call');
      const error = await worker.call('untilCancelled', undefined, { signal: AbortSignal.abort(reason) }).catch((caught: unknown) => caught);
      expect(error).to.equal(reason);
      expect((await worker.call('seen')).calls).to.equal(0);
    });

    it('skips a queued job that was cancelled, and the jobs around it still answer', async () => {
      const controller = new AbortController();
      const first = worker.call('queued', { label: 'first', ms: 150 });
      const second = worker.call('queued', { label: 'second', ms: 150 }, { signal: controller.signal }).catch((caught: unknown) => caught);
      const third = worker.call('queued', { label: 'third', ms: 10 });
      await until(async () => (await worker.call('seen')).started.length === 1, 'the first job to start');
      controller.abort(new Error('second gave up'));
      expect(((await second) as Error).message).to.equal('second gave up');
      expect(await Promise.all([first, third])).to.deep.equal(['first', 'third']);
      expect((await worker.call('seen')).started).to.deep.equal(['first', 'third']);
    });

    it('ignores an abort after the answer arrived, and keeps serving', async () => {
      const controller = new AbortController();
      expect(await worker.call('echo', 'done', { signal: controller.signal })).to.equal('done');
      controller.abort();
      expect(await worker.call('echo', 'next')).to.equal('next');
      expect((await worker.call('seen')).cancelled).to.equal(0);
    });
  });
});
