import { expect } from 'chai';
import { InferenceFailedError } from '../../../src/errors.js';
import { ModelWorker, type ModelWorkerOptions } from '../../../src/inference/worker/model-worker.js';
import { sleep, until } from '../../helpers/until.js';
import { ECHO_WORKER, type EchoApi, type EchoInit } from './echo-api.js';

const OPTIONS: ModelWorkerOptions<EchoInit> = { init: { scale: 1 }, modelId: 'echo-model', name: 'echo', stuckGraceMs: 300 };

/**
 * A ModelWorker on the echo worker. Each thread answers `seen` from its own state, so tests mark
 * a thread with one queued job and recognise a fresh thread by an empty `seen.started`.
 */
async function startEcho(options: Partial<ModelWorkerOptions<EchoInit>> = {}) {
  return { worker: await ModelWorker.start(ECHO_WORKER, { ...OPTIONS, ...options }) };
}

const caught = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);

describe('ModelWorker', () => {
  let worker: ModelWorker<EchoApi>;
  afterEach(() => worker?.dispose());

  describe('respawn', () => {
    it('fails the calls of a thread that died with 503 inference_failed, then answers from a fresh one', async () => {
      ({ worker } = await startEcho());
      await worker.call('queued', { label: 'mark', ms: 0 }); // marks this thread
      const inFlight = caught(worker.call('slow', 5_000));
      const exit = await caught(worker.call('exit', 3));
      for (const error of [exit, await inFlight]) {
        expect(error).to.be.instanceOf(InferenceFailedError);
        expect(error).to.include({ status: 503, code: 'inference_failed' });
        expect((error as Error).message).to.equal('Model "echo-model" failed while answering: echo worker exited (code 3)');
      }
      expect(await worker.call('echo', 'again')).to.equal('again');
      expect((await worker.call('seen')).started, 'a fresh thread').to.deep.equal([]);
    });

    it('passes errors of a living thread through unchanged', async () => {
      ({ worker } = await startEcho());
      const error = await caught(worker.call('failPlain'));
      expect(error).to.be.instanceOf(Error).and.not.instanceOf(InferenceFailedError);
      expect((error as Error).message).to.equal('boom');
    });

    it('rejects start with the setup error (the model cannot load)', async () => {
      const error = await caught(ModelWorker.start(ECHO_WORKER, { ...OPTIONS, init: { scale: 1, failSetup: true } }));
      expect((error as Error).message).to.equal('could not decode audio: setup refused');
    });
  });

  describe('queue', () => {
    it("runs the worker's serial jobs one at a time in arrival order, skipping one cancelled while it waits", async () => {
      ({ worker } = await startEcho());
      const controller = new AbortController();
      const first = worker.call('queued', { label: 'first', ms: 150 });
      const second = caught(worker.call('queued', { label: 'second', ms: 150 }, { signal: controller.signal }));
      const third = worker.call('queued', { label: 'third', ms: 10 });
      await until(async () => (await worker.call('seen')).started.length === 1, 'the first job to start');
      controller.abort(new Error('second gave up'));
      expect(((await second) as Error).message).to.equal('second gave up');
      expect(await Promise.all([first, third])).to.deep.equal(['first', 'third']);
      expect((await worker.call('seen')).started).to.deep.equal(['first', 'third']);
    });
  });

  describe('time-outs', () => {
    it('answers a call past its deadline with 503 inference_failed; the thread, not stuck, keeps serving', async () => {
      ({ worker } = await startEcho());
      const error = await caught(worker.call('untilCancelled', undefined, { timeoutMs: 50 }));
      expect(error).to.be.instanceOf(InferenceFailedError);
      expect((error as Error).message).to.equal('Model "echo-model" failed while answering: no answer to "untilCancelled" within 50 ms');
      await sleep(400); // past the stuck grace
      const seen = await worker.call('seen');
      expect(seen).to.include({ calls: 1, cancelled: 1 });
    });

    it('terminates a thread stuck in a timed-out call and answers the next call from a fresh one', async () => {
      ({ worker } = await startEcho());
      await worker.call('queued', { label: 'mark', ms: 0 }); // marks this thread
      const blocked = await caught(worker.call('block', 3_000, { timeoutMs: 50 }));
      expect(blocked).to.be.instanceOf(InferenceFailedError);
      // A call sent meanwhile waits behind the stuck one and fails when the thread is ended.
      const queuedBehind = await caught(worker.call('echo', 'behind'));
      expect(queuedBehind).to.be.instanceOf(InferenceFailedError);
      expect((queuedBehind as Error).message).to.match(/stuck in "block" past its deadline and was terminated/);
      expect(await worker.call('echo', 'fresh')).to.equal('fresh');
      expect((await worker.call('seen')).started, 'a fresh thread').to.deep.equal([]);
    });
  });

  describe('cancellation', () => {
    it("rejects at once with the signal's reason (not inference_failed) and aborts the call inside the worker", async () => {
      ({ worker } = await startEcho());
      const controller = new AbortController();
      const call = caught(worker.call('untilCancelled', undefined, { signal: controller.signal }));
      const reason = new Error('client went away');
      await until(async () => (await worker.call('seen')).calls === 1, 'the call to reach the worker');
      controller.abort(reason);
      expect(await call).to.equal(reason);
      expect(await worker.call('seen')).to.include({ calls: 1, cancelled: 1 });
    });

    it('never starts a thread or sends a call for a signal that has already aborted', async () => {
      ({ worker } = await startEcho());
      const reason = new Error('gone before the call');
      expect(await caught(worker.call('untilCancelled', undefined, { signal: AbortSignal.abort(reason) }))).to.equal(reason);
      expect((await worker.call('seen')).calls).to.equal(0);
    });
  });

  describe('dispose', () => {
    it("runs the worker's dispose, then refuses calls instead of starting a new thread", async () => {
      ({ worker } = await startEcho());
      const queued = worker.call('queued', { label: 'in flight', ms: 50 });
      await worker.dispose();
      expect(await queued).to.equal('in flight');
      const error = await caught(worker.call('echo', 1));
      expect((error as Error).message).to.equal('Model "echo-model" was unloaded');
    });

    it('stops an idle thread after idleStopMs and starts a fresh one on the next call, but not while held', async () => {
      worker = ModelWorker.create(ECHO_WORKER, { ...OPTIONS, idleStopMs: 50 });
      await worker.call('queued', { label: 'mark', ms: 0 }); // marks this thread
      const release = worker.hold();
      await sleep(150);
      expect((await worker.call('seen')).started, 'held: the same thread').to.deep.equal(['mark']);
      release();
      await sleep(150);
      expect((await worker.call('seen')).started, 'idle: a fresh thread').to.deep.equal([]);
    });
  });
});
