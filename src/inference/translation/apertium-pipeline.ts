/**
 * One long-lived Apertium pipeline: a chain of processes (one per mode stage) in null-flush
 * mode. A request writes its chunks, each ended by `\0`, then a nonce superblank chunk; the
 * answers come back in the same order, each ended by `\0`. Because every stage answers strictly
 * in order, several requests may be in the pipe at once (stages work on different requests in
 * parallel) and are matched to their answers by position; the nonce proves the match.
 *
 * Supervision, built so that one request's input never fails another's:
 * - Only the oldest request in the pipe is timed, from the moment it became the oldest: the ones
 *   behind it cannot answer before it does, so their own clocks start then. A request that takes
 *   too long there is failed, the pipeline is killed (a stage may be stuck) and the requests
 *   behind it are written again to a fresh pipeline.
 * - A stage that dies, or answers out of step, can have been confused by any request in the pipe.
 *   Each of those becomes a suspect and is retried alone; a suspect that fails alone failed on
 *   its own input, and only it is rejected.
 * - The pipeline is started again on demand; dispose() kills every process.
 * Cancellation: a request whose signal aborts leaves the queue at once; if it is already in the
 * pipe, its answer is dropped when it comes (the pipe must still see it through, to stay in step).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

interface ApertiumPipelineOptions {
  /** argv per stage, from readModeFile(). */
  commands: readonly (readonly string[])[];
  /** Used in error messages, e.g. "eng-spa". */
  name: string;
  /** Base time allowed for one request, in ms (plus `timeoutPerCharMs` per input character). */
  timeoutMs?: number;
  timeoutPerCharMs?: number;
  /** Requests written into the pipe before later ones wait in the queue. */
  maxInFlight?: number;
}

interface PipelineTranslateOptions {
  /** Aborts when the caller no longer wants the answer; the call then rejects with its reason. */
  signal?: AbortSignal;
}

/** What went wrong, in terms a client may see; the message has the details for operators. */
export type ApertiumFailure = 'timeout' | 'failed' | 'disposed' | 'invalid';

export class ApertiumPipelineError extends Error {
  override name = 'ApertiumPipelineError';
  constructor(
    message: string,
    readonly failure: ApertiumFailure,
  ) {
    super(message);
  }
}

interface Job {
  chunks: readonly string[];
  /** Time allowed once the job is the oldest in the pipe. */
  timeoutMs: number;
  nonce: string;
  results: string[];
  /** In the pipe when something went wrong that it may not have caused: it runs alone next. */
  suspect: boolean;
  /** Its caller has gone (aborted): nothing is resolved, the job is only seen through the pipe. */
  abandoned: boolean;
  resolve(results: string[]): void;
  reject(error: unknown): void;
}

const STDERR_TAIL_CHARS = 2000;

export class ApertiumPipeline {
  readonly #options: Required<ApertiumPipelineOptions>;
  #processes: ChildProcess[] = [];
  /** Bumped whenever the processes are replaced, so late events of old ones are ignored. */
  #generation = 0;
  #waiting: Job[] = [];
  #inFlight: Job[] = [];
  #headTimer: NodeJS.Timeout | undefined;
  #partial: Buffer[] = [];
  #stderrTail = '';
  #disposed = false;
  #starts = 0;

  constructor(options: ApertiumPipelineOptions) {
    if (options.commands.length === 0) throw new ApertiumPipelineError('a pipeline needs at least one command', 'invalid');
    this.#options = { timeoutMs: 15_000, timeoutPerCharMs: 2, maxInFlight: 8, ...options };
  }

  /** Process ids of the running stages (empty when stopped); for supervision tests. */
  get pids(): number[] {
    return this.#processes.map((process) => process.pid ?? -1);
  }

  /** How many times the processes were started. */
  get starts(): number {
    return this.#starts;
  }

  /** Translates stream-format chunks (no `\0` inside); answers are in the same order. */
  translate(chunks: readonly string[], { signal }: PipelineTranslateOptions = {}): Promise<string[]> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#disposed) return Promise.reject(new ApertiumPipelineError(`${this.#options.name}: pipeline disposed`, 'disposed'));
    if (chunks.length === 0) return Promise.resolve([]);
    if (chunks.some((chunk) => chunk.includes('\0'))) {
      return Promise.reject(new ApertiumPipelineError('chunks must not contain NUL characters', 'invalid'));
    }
    const chars = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        // Still queued: it leaves the queue. In the pipe: its answer will be dropped.
        this.#waiting = this.#waiting.filter((waiting) => waiting !== job);
        job.abandoned = true;
        reject(signal?.reason);
      };
      const stopListening = () => signal?.removeEventListener('abort', onAbort);
      const job: Job = {
        chunks,
        timeoutMs: this.#options.timeoutMs + chars * this.#options.timeoutPerCharMs,
        nonce: '',
        results: [],
        suspect: false,
        abandoned: false,
        resolve: (results) => (stopListening(), resolve(results)),
        reject: (error) => (stopListening(), reject(error)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(job);
      this.#pump();
    });
  }

  /** Kills every process and resolves once they have exited. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const error = new ApertiumPipelineError(`${this.#options.name}: pipeline disposed`, 'disposed');
    for (const job of this.#waiting.splice(0)) job.reject(error);
    const processes = this.#processes;
    for (const job of this.#stop()) job.reject(error);
    await Promise.all(processes.map((child) => exited(child)));
  }

  #pump(): void {
    while (this.#waiting.length > 0 && this.#inFlight.length < this.#options.maxInFlight) {
      const next = this.#waiting[0] as Job;
      // A suspect runs alone, so that whatever goes wrong while it is in the pipe is its own doing.
      if (this.#inFlight.length > 0 && (next.suspect || this.#inFlight[0]?.suspect)) return;
      if (this.#processes.length === 0) this.#start();
      this.#waiting.shift();
      next.nonce = randomBytes(6).toString('hex');
      next.results = [];
      this.#inFlight.push(next);
      if (this.#inFlight.length === 1) this.#armHeadTimer();
      // A superblank passes every stage untouched, so the nonce comes back verbatim.
      const payload = `${next.chunks.join('\0')}\0[/NONCE:${next.nonce}]\0`;
      this.#processes[0]?.stdin?.write(payload, 'utf8');
    }
  }

  /** Times the oldest job in the pipe: the jobs behind it cannot answer before it does. */
  #armHeadTimer(): void {
    clearTimeout(this.#headTimer);
    this.#headTimer = undefined;
    const head = this.#inFlight[0];
    if (head) this.#headTimer = setTimeout(() => this.#timedOut(head), head.timeoutMs);
  }

  #start(): void {
    const generation = ++this.#generation;
    this.#starts++;
    this.#partial = [];
    this.#stderrTail = '';
    const processes: ChildProcess[] = [];
    // lt-proc classifies letters through the C library's locale; it must be a UTF-8 one.
    const env = { ...process.env, LC_ALL: 'C.UTF-8' };
    for (const [index, [program, ...args]] of this.#options.commands.entries()) {
      const previous = processes[index - 1];
      const child = spawn(program as string, args, {
        env,
        stdio: [previous?.stdout ?? 'pipe', 'pipe', 'pipe'],
      });
      // The previous stage's stdout now belongs to this child; close our copy so that a dying
      // stage gives its neighbours EOF/EPIPE instead of a pipe the parent still holds open.
      previous?.stdout?.destroy();
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
      });
      const stage = `${program}`;
      child.on('error', (error) => this.#crashed(generation, `${stage} failed to start: ${error.message}`));
      child.on('exit', (code, signal) => this.#crashed(generation, `${stage} exited (${signal ?? `code ${code}`})`));
      processes.push(child);
    }
    const first = processes[0] as ChildProcess;
    first.stdin?.on('error', () => {}); // EPIPE after a crash; the exit handler reports it.
    const last = processes[processes.length - 1] as ChildProcess;
    last.stdout?.on('data', (data: Buffer) => {
      if (generation === this.#generation) this.#receive(data);
    });
    this.#processes = processes;
  }

  #receive(data: Buffer): void {
    let start = 0;
    for (let end = data.indexOf(0); end !== -1; end = data.indexOf(0, start)) {
      this.#partial.push(data.subarray(start, end));
      const answer = Buffer.concat(this.#partial).toString('utf8');
      this.#partial = [];
      start = end + 1;
      if (!this.#settle(answer)) return;
    }
    if (start < data.length) this.#partial.push(Buffer.from(data.subarray(start)));
  }

  /** Gives one answer to the oldest request; false when the stream went out of step. */
  #settle(answer: string): boolean {
    const job = this.#inFlight[0];
    if (!job) return this.#failed('an answer nobody asked for');
    const isNonce = answer.includes(`[/NONCE:${job.nonce}]`);
    if (job.results.length < job.chunks.length) {
      // A nonce here means a stage merged or dropped a chunk's flush.
      if (isNonce) return this.#failed('answers out of step');
      job.results.push(answer);
      return true;
    }
    if (!isNonce) return this.#failed('answers out of step');
    this.#inFlight.shift();
    this.#armHeadTimer();
    if (!job.abandoned) job.resolve(job.results);
    this.#pump();
    return true;
  }

  /**
   * A stage died or answered out of step. Any job in the pipe may have caused it: one that was
   * alone there is rejected, the others are retried alone.
   */
  #failed(what: string, stderr = ''): false {
    const error = new ApertiumPipelineError(`${this.#options.name}: ${what}${stderr ? `: ${stderr}` : ''}`, 'failed');
    const jobs = this.#stop().filter((job) => !job.abandoned);
    const alone = jobs.length === 1 && jobs[0]?.suspect;
    const again: Job[] = [];
    for (const job of jobs) {
      if (alone) {
        job.reject(error);
      } else {
        job.suspect = true;
        again.push(job);
      }
    }
    this.#waiting.unshift(...again);
    this.#pump();
    return false;
  }

  /** The oldest job in the pipe had its whole time there: it is failed, the ones behind it are written again. */
  #timedOut(head: Job): void {
    if (this.#inFlight[0] !== head) return;
    const error = new ApertiumPipelineError(`${this.#options.name}: no answer within ${Math.round(head.timeoutMs)} ms; pipeline restarted`, 'timeout');
    const [, ...behind] = this.#stop();
    head.reject(error);
    this.#waiting.unshift(...behind.filter((job) => !job.abandoned));
    this.#pump();
  }

  #crashed(generation: number, what: string): void {
    if (generation !== this.#generation || this.#disposed) return;
    this.#failed(what, this.#stderrTail.trim());
  }

  /** Kills the processes; returns the jobs that were in the pipe, oldest first. */
  #stop(): Job[] {
    this.#generation++;
    clearTimeout(this.#headTimer);
    this.#headTimer = undefined;
    for (const child of this.#processes) {
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.#processes = [];
    this.#partial = [];
    const jobs = this.#inFlight;
    this.#inFlight = [];
    return jobs;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
