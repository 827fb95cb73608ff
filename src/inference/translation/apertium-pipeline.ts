/**
 * One long-lived Apertium pipeline: a chain of processes (one per mode stage) in null-flush
 * mode. A request writes its chunks, each ended by `\0`, then a nonce superblank chunk; the
 * answers come back in the same order, each ended by `\0`. Because every stage answers strictly
 * in order, several requests may be in the pipe at once (stages work on different requests in
 * parallel) and are matched to their answers by position; the nonce proves the match.
 *
 * Supervision: a stage that dies fails the requests in the pipe (each is retried once on a fresh
 * pipeline); a request that takes too long kills the pipeline (it may be stuck) and fails; the
 * pipeline is started again on the next request. dispose() kills every process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface ApertiumPipelineOptions {
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

export class ApertiumPipelineError extends Error {
  override name = 'ApertiumPipelineError';
}

interface Job {
  chunks: readonly string[];
  nonce: string;
  results: string[];
  retried: boolean;
  timer?: NodeJS.Timeout;
  resolve(results: string[]): void;
  reject(error: Error): void;
}

const STDERR_TAIL_CHARS = 2000;

export class ApertiumPipeline {
  readonly #options: Required<ApertiumPipelineOptions>;
  #processes: ChildProcess[] = [];
  /** Bumped whenever the processes are replaced, so late events of old ones are ignored. */
  #generation = 0;
  readonly #waiting: Job[] = [];
  #inFlight: Job[] = [];
  #partial: Buffer[] = [];
  #stderrTail = '';
  #disposed = false;
  #starts = 0;

  constructor(options: ApertiumPipelineOptions) {
    if (options.commands.length === 0) throw new ApertiumPipelineError('a pipeline needs at least one command');
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
  translate(chunks: readonly string[]): Promise<string[]> {
    if (this.#disposed) return Promise.reject(new ApertiumPipelineError(`${this.#options.name}: pipeline disposed`));
    if (chunks.length === 0) return Promise.resolve([]);
    if (chunks.some((chunk) => chunk.includes('\0'))) {
      return Promise.reject(new ApertiumPipelineError('chunks must not contain NUL characters'));
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ chunks, nonce: '', results: [], retried: false, resolve, reject });
      this.#pump();
    });
  }

  /** Kills every process and resolves once they have exited. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const error = new ApertiumPipelineError(`${this.#options.name}: pipeline disposed`);
    for (const job of this.#waiting.splice(0)) job.reject(error);
    const processes = this.#processes;
    this.#stop(error, { retry: false });
    await Promise.all(processes.map((child) => exited(child)));
  }

  #pump(): void {
    while (this.#waiting.length > 0 && this.#inFlight.length < this.#options.maxInFlight) {
      if (this.#processes.length === 0) this.#start();
      const job = this.#waiting.shift() as Job;
      job.nonce = randomBytes(6).toString('hex');
      job.results = [];
      this.#inFlight.push(job);
      const chars = job.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      const timeout = this.#options.timeoutMs + chars * this.#options.timeoutPerCharMs;
      job.timer = setTimeout(() => this.#timedOut(timeout), timeout);
      // A superblank passes every stage untouched, so the nonce comes back verbatim.
      const payload = `${job.chunks.join('\0')}\0[/NONCE:${job.nonce}]\0`;
      this.#processes[0]?.stdin?.write(payload, 'utf8');
    }
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
    if (!job) return this.#desynchronised('an answer nobody asked for');
    if (job.results.length < job.chunks.length) {
      job.results.push(answer);
      return true;
    }
    if (!answer.includes(`[/NONCE:${job.nonce}]`)) return this.#desynchronised('answers out of step');
    this.#inFlight.shift();
    clearTimeout(job.timer);
    job.resolve(job.results);
    this.#pump();
    return true;
  }

  #desynchronised(what: string): false {
    this.#stop(new ApertiumPipelineError(`${this.#options.name}: ${what}; pipeline restarted`), { retry: true });
    this.#pump();
    return false;
  }

  #timedOut(timeoutMs: number): void {
    const error = new ApertiumPipelineError(`${this.#options.name}: no answer within ${timeoutMs} ms; pipeline restarted`);
    this.#stop(error, { retry: false });
    this.#pump();
  }

  #crashed(generation: number, what: string): void {
    if (generation !== this.#generation || this.#disposed) return;
    const stderr = this.#stderrTail.trim();
    const error = new ApertiumPipelineError(`${this.#options.name}: ${what}${stderr ? `: ${stderr}` : ''}`);
    this.#stop(error, { retry: true });
    this.#pump();
  }

  /** Kills the processes and fails (or, once, re-queues) the requests that were in the pipe. */
  #stop(error: Error, { retry }: { retry: boolean }): void {
    this.#generation++;
    for (const child of this.#processes) {
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.#processes = [];
    this.#partial = [];
    const failed = this.#inFlight;
    this.#inFlight = [];
    const again: Job[] = [];
    for (const job of failed) {
      clearTimeout(job.timer);
      if (retry && !job.retried && !this.#disposed) {
        job.retried = true;
        again.push(job);
      } else {
        job.reject(error);
      }
    }
    this.#waiting.unshift(...again);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
