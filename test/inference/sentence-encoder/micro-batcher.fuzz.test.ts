/**
 * Random interleavings of submissions, aborts and batch runs: whatever the timing, an item
 * aborted before its batch starts never reaches the runner, every other item gets its own
 * output, an aborted item rejects with its signal's reason, nothing hangs, and the size and
 * concurrency limits hold.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { MicroBatcher } from '../../../src/inference/sentence-encoder/micro-batcher.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

/** Waits `count` event-loop turns: the unit of time of these scenarios. */
async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const scenario = fc.record({
  maxBatchSize: fc.integer({ min: 1, max: 5 }),
  maxInFlight: fc.integer({ min: 1, max: 3 }),
  runTurns: fc.integer({ min: 0, max: 4 }),
  items: fc.array(
    fc.record({
      /** Turns between the previous submission and this one. */
      gap: fc.integer({ min: 0, max: 3 }),
      /** Turns after submission when the caller gives up; undefined: never. */
      abortAfter: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
    }),
    { maxLength: 20 },
  ),
});

describe('MicroBatcher under random submissions and aborts (property)', () => {
  it('runs only live items, answers each caller correctly and respects its limits', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ maxBatchSize, maxInFlight, runTurns, items }) => {
        const controllers = items.map(() => new AbortController());
        let running = 0;
        let maxRunning = 0;
        const violations: string[] = [];
        const batcher = new MicroBatcher(
          async (batch: number[]) => {
            running++;
            maxRunning = Math.max(maxRunning, running);
            if (batch.length > maxBatchSize) violations.push(`batch of ${batch.length}`);
            for (const index of batch) if (controllers[index]!.signal.aborted) violations.push(`aborted item ${index} ran`);
            await turns(runTurns);
            running--;
            return batch.map((index) => index * 2);
          },
          { maxBatchSize, maxWaitMs: 0, maxInFlight },
        );
        const outcomes: Promise<PromiseSettledResult<number>>[] = [];
        const aborts: Promise<void>[] = [];
        for (const [index, item] of items.entries()) {
          await turns(item.gap);
          const controller = controllers[index]!;
          outcomes.push(
            batcher.submit(index, { signal: controller.signal }).then(
              (value) => ({ status: 'fulfilled', value }),
              (reason: unknown) => ({ status: 'rejected', reason }),
            ),
          );
          if (item.abortAfter !== undefined) {
            const after = item.abortAfter;
            aborts.push(turns(after).then(() => controller.abort(new Error(`abort ${index}`))));
          }
        }
        const results = await Promise.all(outcomes);
        await Promise.all(aborts);
        expect(violations).to.deep.equal([]);
        expect(maxRunning).to.be.at.most(maxInFlight);
        results.forEach((result, index) => {
          const signal = controllers[index]!.signal;
          if (result.status === 'fulfilled') expect(result.value).to.equal(index * 2);
          else expect(result.reason).to.equal(signal.reason);
          if (items[index]!.abortAfter === undefined) expect(result.status).to.equal('fulfilled');
        });
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
