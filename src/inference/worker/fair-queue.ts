/**
 * The one queue of a worker thread: jobs hold the thread one at a time, and the thread is shared
 * fairly between requesters (API keys, requester.ts) rather than first come, first served.
 *
 * Fair by thread time, as a CPU scheduler is: each requester with work here is charged the time its
 * jobs held the thread, and the next turn goes to the one charged least (ties: the earlier
 * arrival). A requester that arrives, or comes back after its work ran out, starts level with the
 * least charged of those already here, so time spent idle is not credit to spend later. Within one
 * requester, jobs run in arrival order.
 *
 * A long job is cut into turns by its own `step`s: before each unit of model work (a 30-s window's
 * encoder run, one decode at one temperature), a job that has been charged more than another
 * requester waiting here hands the thread over and waits for its next turn, keeping its place
 * ahead of its requester's later jobs. So a request that costs minutes makes another key's
 * request wait one unit, not the whole request. A job that never steps is one unit.
 *
 * A job paused between steps keeps its memory (a transcription: its decoded audio), so at most
 * `maxStarted` jobs are started and unfinished at once; past that, waiting jobs start only as
 * started ones finish, and the started ones take turns among themselves.
 *
 * A job whose signal aborts while it waits is dropped: its promise rejects with the signal's reason
 * at once and the job never starts, so a cancelled request gives its place to the next one instead
 * of running for nobody. A paused job whose signal aborts is let go at once (its next `step` throws).
 */
import { abortable } from '../abortable.js';

/** What a job may do while it runs: mark the places where it can hand the thread over. */
export interface JobTurn {
  /**
   * Runs one unit of the job's work. Before it, if another requester is owed the thread, waits
   * for the job's next turn (units of the job already running finish first). Throws the signal's
   * reason once the job's signal has aborted.
   */
  step<T>(unit: () => Promise<T> | T): Promise<T>;
}

export interface FairQueueOptions {
  /** Jobs started and not finished at once (one holding the thread, the rest paused); default 4. */
  maxStarted?: number;
  /** The clock thread time is charged by (tests); default performance.now. */
  now?: () => number;
}

/** One requester's place in the queue; kept only while it has a job waiting or holding. */
interface Requester {
  /** Thread time charged, in ms (comparable only between requesters present at once). */
  used: number;
  /** Its entries in order; a paused job's continuation goes first. */
  waiting: Entry[];
}

interface Entry {
  requester: Requester;
  /** Arrival order, for ties. */
  order: number;
  /** A paused job waiting to go on (always eligible), rather than a job yet to start. */
  continuation: boolean;
  /** Gives the entry the thread. */
  grant(): void;
}

/** A started job: who it runs for, and since when it holds the thread (undefined while paused). */
interface Job {
  requester: Requester;
  since: number | undefined;
}

const DEFAULT_MAX_STARTED = 4;

export class FairQueue {
  readonly #maxStarted: number;
  readonly #now: () => number;
  readonly #requesters = new Map<string, Requester>();
  #holder: Job | undefined;
  #started = 0;
  #arrivals = 0;
  /** Jobs queued and not yet finished or dropped, for `idle`. */
  #unfinished = 0;
  #onIdle: Array<() => void> = [];

  constructor(options: FairQueueOptions = {}) {
    this.#maxStarted = options.maxStarted ?? DEFAULT_MAX_STARTED;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Queues `job` for `requester` (undefined: the anonymous requester, as without API keys). */
  run<T>(requester: string | undefined, job: (turn: JobTurn) => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#unfinished++;
    const done = new Promise<T>((resolve, reject) => {
      const owner = this.#requester(requester ?? '');
      const onAbort = () => {
        this.#remove(entry);
        reject(signal?.reason);
      };
      const entry: Entry = {
        requester: owner,
        order: this.#arrivals++,
        continuation: false,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#start(owner, job, signal).then(resolve, reject);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      owner.waiting.push(entry);
      this.#next();
    });
    const finish = () => {
      if (--this.#unfinished === 0) for (const resolve of this.#onIdle.splice(0)) resolve();
    };
    done.then(finish, finish);
    return abortable(done, signal);
  }

  /** Resolves once every job queued so far has finished or been dropped. */
  idle(): Promise<void> {
    return this.#unfinished === 0 ? Promise.resolve() : new Promise((resolve) => this.#onIdle.push(resolve));
  }

  async #start<T>(requester: Requester, work: (turn: JobTurn) => Promise<T> | T, signal: AbortSignal | undefined): Promise<T> {
    const job: Job = { requester, since: this.#now() };
    this.#holder = job;
    this.#started++;
    try {
      // One event-loop turn first: in a worker thread, a cancel message that arrived while the
      // previous job ran synchronously (ONNX Runtime blocks the thread) is only delivered then.
      if (signal) await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      return await work(this.#turnOf(job, signal));
    } finally {
      this.#started--;
      if (this.#holder === job) this.#release(job);
      else this.#forgetIfDone(requester);
      this.#next();
    }
  }

  /** The `step` of `job`: pauses it before a unit when another requester is owed the thread. */
  #turnOf(job: Job, signal: AbortSignal | undefined): JobTurn {
    let running = 0;
    let drained: (() => void) | undefined;
    let pausing: Promise<void> | undefined;
    const pause = async () => {
      // Units of this job already running (several windows decoded side by side) finish first.
      if (running > 0) await new Promise<void>((resolve) => (drained = resolve));
      await this.#handOver(job, signal);
    };
    return {
      step: async (unit) => {
        for (;;) {
          signal?.throwIfAborted();
          if (pausing) {
            await pausing;
          } else if (this.#owed(job)) {
            pausing = pause().finally(() => (pausing = undefined));
          } else {
            break;
          }
        }
        running++;
        try {
          return await unit();
        } finally {
          if (--running === 0) drained?.();
        }
      },
    };
  }

  /** Whether `job` holds the thread and another requester, charged less, has an entry that may go. */
  #owed(job: Job): boolean {
    if (this.#holder !== job || job.since === undefined) return false;
    const used = job.requester.used + (this.#now() - job.since);
    for (const requester of this.#requesters.values()) {
      if (requester !== job.requester && requester.used < used && this.#eligible(requester.waiting[0])) return true;
    }
    return false;
  }

  /** Pauses `job` (if still owed): its continuation waits first in its requester's line. */
  #handOver(job: Job, signal: AbortSignal | undefined): Promise<void> {
    if (!this.#owed(job)) return Promise.resolve();
    const { requester } = job;
    const resumed = new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#remove(entry);
        reject(signal?.reason);
      };
      const entry: Entry = {
        requester,
        order: this.#arrivals++,
        continuation: true,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#holder = job;
          job.since = this.#now();
          // As in #start: let a cancel that arrived meanwhile be delivered before the job goes on.
          if (signal) setImmediate(resolve);
          else resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      requester.waiting.unshift(entry);
    });
    // Released once its continuation waits, so the requester stays present with its charge.
    this.#release(job);
    this.#next();
    return resumed;
  }

  /** Ends `job`'s hold: charges its requester the time held. */
  #release(job: Job): void {
    if (job.since !== undefined) job.requester.used += this.#now() - job.since;
    job.since = undefined;
    this.#holder = undefined;
    this.#forgetIfDone(job.requester);
  }

  /** Gives the thread, if free, to the eligible entry of the requester charged least. */
  #next(): void {
    if (this.#holder) return;
    let best: Entry | undefined;
    for (const requester of this.#requesters.values()) {
      const head = requester.waiting[0];
      if (!head || !this.#eligible(head)) continue;
      if (!best || requester.used < best.requester.used || (requester.used === best.requester.used && head.order < best.order)) best = head;
    }
    if (!best) return;
    best.requester.waiting.shift();
    best.grant();
  }

  #eligible(entry: Entry | undefined): boolean {
    return entry !== undefined && (entry.continuation || this.#started < this.#maxStarted);
  }

  /** The requester named `name`, added level with the least charged one present. */
  #requester(name: string): Requester {
    let requester = this.#requesters.get(name);
    if (!requester) {
      let floor: number | undefined;
      for (const present of this.#requesters.values()) floor = floor === undefined ? present.used : Math.min(floor, present.used);
      requester = { used: floor ?? 0, waiting: [] };
      this.#requesters.set(name, requester);
    }
    return requester;
  }

  #remove(entry: Entry): void {
    const { waiting } = entry.requester;
    const index = waiting.indexOf(entry);
    if (index >= 0) waiting.splice(index, 1);
    this.#forgetIfDone(entry.requester);
    this.#next();
  }

  /** A requester with nothing waiting and nothing holding leaves (and its charge with it). */
  #forgetIfDone(requester: Requester): void {
    if (requester.waiting.length > 0 || this.#holder?.requester === requester) return;
    for (const [name, present] of this.#requesters) if (present === requester) this.#requesters.delete(name);
  }
}
