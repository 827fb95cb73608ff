import { expect } from 'chai';
import { MicroBatcher } from '../../../src/inference/sentence-encoder/micro-batcher.js';
import { asRequester, backgroundRequester } from '../../../src/requester.js';
import { sleep, until } from '../../helpers/until.js';

/** A runner that records the batches it was given and doubles each number. */
function recordingRunner(delayMs = 0) {
  const batches: number[][] = [];
  const run = async (items: number[]) => {
    batches.push([...items]);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return items.map((item) => item * 2);
  };
  return { batches, run };
}

/** A recording runner whose batches wait until the test calls `open`. */
function heldRunner() {
  const batches: number[][] = [];
  let running = 0;
  let maxRunning = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const run = async (items: number[]) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    batches.push([...items]);
    await gate;
    running--;
    return items.map((item) => item * 2);
  };
  return { batches, run, open, maxRunning: () => maxRunning };
}

describe('MicroBatcher', () => {
  it('runs concurrent submissions as one batch and resolves each with its own output', async () => {
    const { batches, run } = recordingRunner();
    const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 5 });
    const outputs = await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(outputs).to.deep.equal([2, 4, 6]);
    expect(batches).to.deep.equal([[1, 2, 3]]);
  });

  it('starts a batch at once when maxBatchSize items are waiting', async () => {
    const { batches, run } = recordingRunner();
    const batcher = new MicroBatcher(run, { maxBatchSize: 2, maxWaitMs: 10_000 });
    const started = Date.now();
    await Promise.all([batcher.submit(1), batcher.submit(2)]);
    expect(Date.now() - started).to.be.below(1000);
    expect(batches).to.deep.equal([[1, 2]]);
  });

  it('never hands the runner more than maxBatchSize items', async () => {
    const { batches, run } = recordingRunner(5);
    const batcher = new MicroBatcher(run, { maxBatchSize: 3, maxWaitMs: 1 });
    const outputs = await Promise.all(Array.from({ length: 7 }, (_, n) => batcher.submit(n)));
    expect(outputs).to.deep.equal([0, 2, 4, 6, 8, 10, 12]);
    expect(batches.map((batch) => batch.length)).to.deep.equal([3, 3, 1]);
  });

  it('runs one batch at a time and gathers items that arrive meanwhile into the next', async () => {
    const { batches, run, open, maxRunning } = heldRunner();
    const batcher = new MicroBatcher(run, { maxBatchSize: 16, maxWaitMs: 0 });
    const first = batcher.submit(1);
    await until(() => batches.length === 1, 'the first batch to start');
    const rest = [2, 3, 4].map((n) => batcher.submit(n));
    open();
    expect(await Promise.all([first, ...rest])).to.deep.equal([2, 4, 6, 8]);
    expect(maxRunning()).to.equal(1);
    expect(batches).to.deep.equal([[1], [2, 3, 4]]);
  });

  it("fills each batch one item per group in turn: a large request's items share batches with a later small one", async () => {
    const { batches, run, open } = heldRunner();
    const batcher = new MicroBatcher(run, { maxBatchSize: 4, maxWaitMs: 0 });
    const first = batcher.submit(0);
    await until(() => batches.length === 1, 'the first batch to start');
    // While it runs: one request of 8 items, then a request of 2 and a lone item (no group).
    const large = {};
    const small = {};
    const outputs = [
      ...[10, 11, 12, 13, 14, 15, 16, 17].map((n) => batcher.submit(n, { group: large })),
      ...[20, 21].map((n) => batcher.submit(n, { group: small })),
      batcher.submit(30),
    ];
    open();
    expect(await Promise.all([first, ...outputs])).to.deep.equal([0, 20, 22, 24, 26, 28, 30, 32, 34, 40, 42, 60]);
    expect(batches).to.deep.equal([[0], [10, 20, 30, 11], [21, 12, 13, 14], [15, 16, 17]]);
  });

  it("takes turns by key above requests: one key's many requests share batches with another key's one as one request would", async () => {
    const { batches, run, open } = heldRunner();
    const batcher = new MicroBatcher(run, { maxBatchSize: 4, maxWaitMs: 0 });
    const first = batcher.submit(0);
    await until(() => batches.length === 1, 'the first batch to start');
    // While it runs: key A sends three requests of two items, then key B one of three.
    const outputs = [
      ...[10, 20, 30].flatMap((base) => {
        const request = {};
        return [base, base + 1].map((n) => asRequester('key A', () => batcher.submit(n, { group: request })));
      }),
    ];
    const request = {};
    outputs.push(...[40, 41, 42].map((n) => asRequester('key B', () => batcher.submit(n, { group: request }))));
    open();
    await Promise.all([first, ...outputs]);
    // A's items alternate with B's; within A, its requests take turns.
    expect(batches).to.deep.equal([[0], [10, 40, 20, 41], [30, 42, 11, 21], [31]]);
  });

  it('with two slots, splits a burst between them and runs both at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const batches: number[][] = [];
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        batches.push(items);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return items.map((item) => item * 2);
      },
      { maxBatchSize: 32, maxWaitMs: 1, maxInFlight: 2 },
    );
    const outputs = await Promise.all(Array.from({ length: 10 }, (_, n) => batcher.submit(n)));
    expect(outputs).to.deep.equal(Array.from({ length: 10 }, (_, n) => n * 2));
    expect(maxRunning).to.equal(2);
    expect(batches.map((batch) => batch.length)).to.deep.equal([5, 5]);
  });

  it('rejects every item of a failed batch and keeps serving later ones', async () => {
    let fail = true;
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        if (fail) throw new Error('boom');
        return items;
      },
      { maxBatchSize: 4, maxWaitMs: 1 },
    );
    const results = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(results.map((result) => result.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.submit(3)).to.equal(3);
  });

  it('rejects when the runner returns the wrong number of outputs', async () => {
    const batcher = new MicroBatcher(async () => [1], { maxBatchSize: 4, maxWaitMs: 1 });
    const results = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(results.every((result) => result.status === 'rejected')).to.equal(true);
  });

  it("runs a batch's lines in short runs while requests come, and a request that arrives among them in a run of its own", async () => {
    const { batches, run } = recordingRunner(20);
    const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 0, maxBackgroundBatchSize: 2, reserveMs: 60_000 });
    await asRequester('key A', () => batcher.submit(99));
    const lines = [1, 2, 3, 4, 5, 6].map((n) => asRequester(backgroundRequester('key A'), () => batcher.submit(n)));
    await until(() => batches.length === 2, 'the first run of lines');
    const request = asRequester('key A', () => batcher.submit(100));
    expect(await Promise.all([...lines, request])).to.deep.equal([2, 4, 6, 8, 10, 12, 200]);
    expect(batches).to.deep.equal([[99], [1, 2], [100], [3, 4], [5, 6]]);
  });

  it("runs a batch's lines in full batches when no request came within reserveMs", async () => {
    const { batches, run } = recordingRunner(20);
    const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 0, maxBackgroundBatchSize: 2, reserveMs: 60_000 });
    const lines = [1, 2, 3, 4, 5, 6].map((n) => asRequester(backgroundRequester('key A'), () => batcher.submit(n)));
    expect(await Promise.all(lines)).to.deep.equal([2, 4, 6, 8, 10, 12]);
    expect(batches).to.deep.equal([[1, 2, 3, 4, 5, 6]]);
  });

  it("starts a request on a foreground slot while a batch's lines fill the others, which they never take", async () => {
    const { batches, run } = recordingRunner(20);
    const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 0, maxBackgroundBatchSize: 2, foregroundSlots: 1, reserveMs: 60_000 });
    await asRequester('key B', () => batcher.submit(99));
    const lines = [1, 2, 3, 4].map((n) => asRequester(backgroundRequester('key A'), () => batcher.submit(n)));
    await until(() => batches.length === 2, 'the first run of lines');
    const request = asRequester('key B', () => batcher.submit(100));
    await until(() => batches.length === 3, 'the request to start');
    expect(batches).to.deep.equal([[99], [1, 2], [100]]);
    expect(await Promise.all([...lines, request])).to.deep.equal([2, 4, 6, 8, 200]);
    expect(batches).to.deep.equal([[99], [1, 2], [100], [3, 4]]);
  });

  it("with two slots, for reserveMs after a request, runs a batch's lines on one and keeps the other free", async () => {
    const { batches, run } = recordingRunner(20);
    const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 0, maxInFlight: 2, maxBackgroundBatchSize: 2, reserveMs: 60_000 });
    await asRequester('key B', () => batcher.submit(100));
    const lines = [1, 2, 3, 4].map((n) => asRequester(backgroundRequester('key A'), () => batcher.submit(n)));
    await until(() => batches.length === 2, 'the first run of lines');
    const request = asRequester('key B', () => batcher.submit(101));
    await until(() => batches.length === 3, 'the request to start');
    expect(batches).to.deep.equal([[100], [1, 2], [101]]);
    expect(await Promise.all([...lines, request])).to.deep.equal([2, 4, 6, 8, 202]);
    expect(batches).to.deep.equal([[100], [1, 2], [101], [3, 4]]);
  });

  it('refuses a batch size below 1', () => {
    expect(() => new MicroBatcher(async (items: number[]) => items, { maxBatchSize: 0, maxWaitMs: 1 })).to.throw(RangeError);
  });

  describe('cancellation', () => {
    it("takes an aborted waiting item out of the queue: it rejects with the signal's reason and never reaches the runner", async () => {
      const { batches, run } = recordingRunner();
      const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 30 });
      const controller = new AbortController();
      const first = batcher.submit(1);
      const second = batcher.submit(2, { signal: controller.signal }).catch((caught: unknown) => caught);
      const third = batcher.submit(3);
      const reason = new Error('client went away');
      controller.abort(reason);
      expect(await second).to.equal(reason);
      expect(await Promise.all([first, third])).to.deep.equal([2, 6]);
      expect(batches).to.deep.equal([[1, 3]]);
    });

    it('answers an item aborted while its batch runs at once, and still answers the rest of that batch', async () => {
      const { batches, run, open } = heldRunner();
      let batchFinished = false;
      const batcher = new MicroBatcher(
        async (items: number[]) => {
          const outputs = await run(items);
          batchFinished = true;
          return outputs;
        },
        { maxBatchSize: 8, maxWaitMs: 0 },
      );
      const controller = new AbortController();
      const aborted = batcher.submit(1, { signal: controller.signal }).catch((caught: unknown) => caught);
      const kept = batcher.submit(2);
      await until(() => batches.length === 1, 'the batch [1, 2] to start');
      expect(batches).to.deep.equal([[1, 2]]);
      const reason = new Error('client went away');
      controller.abort(reason);
      expect(await aborted).to.equal(reason);
      expect(batchFinished, 'rejected before the batch ended').to.equal(false);
      open();
      expect(await kept).to.equal(4);
    });

    it('refuses an item whose signal has already aborted without queuing it', async () => {
      const { batches, run } = recordingRunner();
      const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 1 });
      const reason = new Error('already gone');
      expect(await batcher.submit(1, { signal: AbortSignal.abort(reason) }).catch((caught: unknown) => caught)).to.equal(reason);
      expect(await batcher.submit(2)).to.equal(4);
      expect(batches).to.deep.equal([[2]]);
    });

    it('does not start a batch for items that all gave up while every slot was busy', async () => {
      const { batches, run, open } = heldRunner();
      const batcher = new MicroBatcher(run, { maxBatchSize: 8, maxWaitMs: 0 });
      const first = batcher.submit(1);
      await until(() => batches.length === 1, '[1] to start');
      const controllers = [new AbortController(), new AbortController()];
      const waiting = controllers.map((controller, n) => batcher.submit(n + 2, { signal: controller.signal }).catch(() => 'aborted'));
      for (const controller of controllers) controller.abort();
      expect(await Promise.all(waiting)).to.deep.equal(['aborted', 'aborted']);
      open();
      expect(await first).to.equal(2);
      await sleep(20);
      expect(batches).to.deep.equal([[1]]);
    });
  });
});
