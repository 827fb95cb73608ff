import { expect } from 'chai';
import { FairQueue, type JobTurn } from '../../../src/inference/worker/fair-queue.js';

/** A queue on a clock that only the jobs move: each unit of work "takes" `cost` ms. */
function clockedQueue(options: { maxStarted?: number } = {}) {
  let clock = 0;
  const events: string[] = [];
  const queue = new FairQueue({ ...options, now: () => clock });
  /** A job of `units` units of `cost` ms each, stepping before each; records every unit it runs. */
  const job =
    (label: string, units = 1, cost = 10) =>
    async (turn: JobTurn) => {
      for (let unit = 1; unit <= units; unit++) {
        await turn.step(async () => {
          events.push(units === 1 ? label : `${label}.${unit}`);
          clock += cost;
          await Promise.resolve();
        });
      }
      return label;
    };
  return { queue, job, events };
}

const caught = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);

/** Most units one key ran ahead of the other at any point: 1 when they took turns. */
function mostAhead(events: readonly string[], a: string, b: string): number {
  let ahead = 0;
  let most = 0;
  for (const event of events) {
    if (event.startsWith(a)) ahead++;
    else if (event.startsWith(b)) ahead--;
    most = Math.max(most, Math.abs(ahead));
  }
  return most;
}

describe('FairQueue', () => {
  it("runs one requester's jobs one at a time, in arrival order", async () => {
    const { queue, job, events } = clockedQueue();
    const results = await Promise.all(['a', 'b', 'c'].map((label) => queue.run(undefined, job(label, 2))));
    expect(results).to.deep.equal(['a', 'b', 'c']);
    expect(events).to.deep.equal(['a.1', 'a.2', 'b.1', 'b.2', 'c.1', 'c.2']);
  });

  it('gives the next job to the requester that has used the thread least, not to the earliest arrival', async () => {
    const { queue, job, events } = clockedQueue();
    const jobs = [queue.run('A', job('A1')), queue.run('A', job('A2')), queue.run('A', job('A3')), queue.run('B', job('B1'))];
    await Promise.all(jobs);
    expect(events).to.deep.equal(['A1', 'B1', 'A2', 'A3']);
  });

  it("cuts a long job at its steps, so another key's job waits one unit, not the whole job", async () => {
    const { queue, job, events } = clockedQueue();
    const long = queue.run('A', job('long', 6));
    // Arrives while the long job's first unit runs.
    await Promise.resolve();
    const short = queue.run('B', job('short'));
    const finished: string[] = [];
    await Promise.all([long, short].map((promise) => promise.then((label) => finished.push(label))));
    expect(finished).to.deep.equal(['short', 'long']);
    expect(events).to.deep.equal(['long.1', 'short', 'long.2', 'long.3', 'long.4', 'long.5', 'long.6']);
  });

  it('lets two long jobs of two keys take turns, by thread time', async () => {
    const { queue, job, events } = clockedQueue();
    const a = queue.run('A', job('A', 6, 10));
    const b = queue.run('B', job('B', 6, 10));
    await Promise.all([a, b]);
    // On a tie the job holding the thread goes on, so a key runs at most one unit ahead.
    expect(events.slice(0, 2)).to.deep.equal(['A.1', 'B.1']);
    expect(mostAhead(events, 'A', 'B')).to.equal(1);
  });

  it('gives a key whose units are cheap more turns than one whose units are dear', async () => {
    const { queue, job, events } = clockedQueue();
    const dear = queue.run('A', job('A', 3, 40));
    const cheap = queue.run('B', job('B', 8, 10));
    await Promise.all([dear, cheap]);
    expect(events).to.deep.equal(['A.1', 'B.1', 'B.2', 'B.3', 'B.4', 'B.5', 'A.2', 'B.6', 'B.7', 'B.8', 'A.3']);
  });

  it('keeps a paused job ahead of its own key’s later jobs', async () => {
    const { queue, job, events } = clockedQueue();
    const jobs = [queue.run('A', job('A1', 2)), queue.run('A', job('A2')), queue.run('B', job('B1', 2))];
    await Promise.all(jobs);
    expect(events.indexOf('A2')).to.be.greaterThan(events.indexOf('A1.2'));
    expect(events.indexOf('B1.1')).to.be.lessThan(events.indexOf('A1.2'));
  });

  it('does not let a key that was idle spend the time it did not use', async () => {
    const { queue, job, events } = clockedQueue();
    await queue.run('B', job('B0', 1, 100)); // B alone for a while, then gone
    const a = queue.run('A', job('A', 4, 10));
    await Promise.resolve();
    const b = queue.run('B', job('B', 4, 10));
    await Promise.all([a, b]);
    // B comes back level with A, not 100 ms behind it (which would let A run all of its units first).
    expect(mostAhead(events.slice(1), 'A', 'B')).to.equal(1);
  });

  it('drops a job whose signal aborts while it waits, at once', async () => {
    const { queue, job, events } = clockedQueue();
    const controller = new AbortController();
    const first = queue.run('A', job('first', 2));
    const dropped = caught(queue.run('B', job('dropped'), controller.signal));
    const third = queue.run('C', job('third'));
    controller.abort(new Error('client left'));
    expect(((await dropped) as Error).message).to.equal('client left');
    await Promise.all([first, third]);
    expect(events).to.deep.equal(['first.1', 'third', 'first.2']);
  });

  it("lets go of a paused job whose signal aborts: its next step throws and others' go on", async () => {
    const { queue, job, events } = clockedQueue();
    const controller = new AbortController();
    const long = caught(queue.run('A', job('long', 5), controller.signal));
    await Promise.resolve();
    const other = queue.run('B', async (turn) => {
      await job('other.1')(turn);
      controller.abort(new Error('client left')); // while the long job is paused
      await job('other.2')(turn);
      return 'other';
    });
    expect(((await long) as Error).message).to.equal('client left');
    expect(await other).to.equal('other');
    expect(events.filter((event) => event.startsWith('long'))).to.deep.equal(['long.1']);
    await queue.idle();
  });

  it('starts no more than maxStarted jobs: past that, the started ones take turns among themselves', async () => {
    const { queue, job, events } = clockedQueue({ maxStarted: 2 });
    const a = queue.run('A', job('A', 3));
    await Promise.resolve();
    const b = queue.run('B', job('B', 3));
    const c = queue.run('C', job('C', 1));
    await Promise.all([a, b, c]);
    // C waits until A or B finishes; A and B alternate meanwhile.
    expect(events.indexOf('C')).to.be.greaterThan(Math.min(events.indexOf('A.3'), events.indexOf('B.3')));
    expect(events.slice(0, 2)).to.deep.equal(['A.1', 'B.1']);
  });

  it('waits for units of a job already running before handing the thread over', async () => {
    const events: string[] = [];
    let clock = 0;
    const timed = new FairQueue({ now: () => clock });
    const running: string[] = [];
    const unit = (label: string, ms: number) => async () => {
      running.push(label);
      expect(running.filter((other) => !other.startsWith('done')).length, `${label} alone with ${running.join(',')}`).to.be.at.most(
        label.startsWith('A') ? 2 : 1,
      );
      await new Promise((resolve) => setTimeout(resolve, ms));
      clock += ms;
      running.splice(running.indexOf(label), 1);
      events.push(label);
    };
    const a = timed.run('A', async (turn) => {
      // Two windows side by side, each stepping.
      await Promise.all([
        (async () => {
          await turn.step(unit('A.w1.1', 5));
          await turn.step(unit('A.w1.2', 5));
        })(),
        (async () => {
          await turn.step(unit('A.w2.1', 20));
          await turn.step(unit('A.w2.2', 5));
        })(),
      ]);
    });
    await Promise.resolve();
    const b = timed.run('B', (turn) => turn.step(unit('B', 5)));
    await Promise.all([a, b]);
    // B ran only once both of A's first units were over, and before A's second ones.
    expect(events.indexOf('B')).to.be.greaterThan(events.indexOf('A.w2.1'));
    expect(events.indexOf('B')).to.be.lessThan(events.indexOf('A.w1.2'));
  });

  it('resolves idle once every queued job has finished or been dropped', async () => {
    const { queue, job } = clockedQueue();
    let settled = 0;
    for (const label of ['a', 'b']) void queue.run(label, job(label, 2)).then(() => settled++);
    await queue.idle();
    expect(settled).to.equal(2);
  });
});
