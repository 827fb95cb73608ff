/**
 * Bounds the inference requests of each task that the server holds at once (running, waiting in
 * a model queue, or still uploading), so a flood cannot grow memory without limit: audio
 * uploads and queued micro-batches otherwise pile up until the process dies. A request over the
 * bound is refused at once with 503 `server_busy` and a Retry-After, before its body is read.
 *
 * A slot is held until both the handler has settled and the response is closed: synthesised
 * speech streams after the handler is done, and a client that hangs up mid-request leaves its
 * work queued.
 *
 * The bound counts texts, not requests: a batch of 256 texts costs 256 single requests, so a route
 * that accepts batches claims the rest of its slots with `claimBatch` once its body is parsed.
 */
import type { Context, Middleware } from 'koa';
import { PayloadTooLargeError, ServerBusyError } from '../errors.js';
import type { Task } from '../inference/types.js';
import type { AdmissionObserver } from './metrics.js';

/** Seconds a refused client is asked to wait; inference requests take about this long. */
const RETRY_AFTER_SECONDS = 1;

export type Admission = (task: Task) => Middleware;

/** Where the admission middleware leaves the claim of more slots for the request's batch. */
const BATCH_CLAIM = Symbol('admission batch claim');

/**
 * Claims `size - 1` more slots of the request's task (the door took one), or throws 503
 * `server_busy`: a batch is admitted whole or not at all. The slots are freed with the request's.
 */
export function claimBatch(ctx: Context, size: number): void {
  const claim = (ctx.state as Record<symbol, ((extra: number) => void) | undefined>)[BATCH_CLAIM];
  if (!claim) throw new Error('claimBatch needs the admission middleware in front of the route');
  if (size > 1) claim(size - 1);
}

export function createAdmission(maxPending: Readonly<Record<Task, number>>, observer?: AdmissionObserver): Admission {
  const pending = new Map<Task, number>();
  const setPending = (task: Task, count: number) => {
    pending.set(task, count);
    observer?.pending(task, count);
  };
  return (task) => async (ctx, next) => {
    const held = pending.get(task) ?? 0;
    if (held >= maxPending[task]) {
      observer?.rejected(task);
      throw new ServerBusyError(`${held} ${task} requests are already in progress or queued; retry shortly`, RETRY_AFTER_SECONDS);
    }
    setPending(task, held + 1);
    let claimed = 1;
    (ctx.state as Record<symbol, (extra: number) => void>)[BATCH_CLAIM] = (extra) => {
      if (claimed + extra > maxPending[task]) {
        // Waiting would never help: say so instead of asking the client to retry.
        throw new PayloadTooLargeError(
          `a batch of ${claimed + extra} texts is more than this server holds at once (${maxPending[task]}); send smaller batches`,
        );
      }
      const now = pending.get(task) ?? 0;
      if (now + extra > maxPending[task]) {
        observer?.rejected(task);
        throw new ServerBusyError(
          `a batch of ${claimed + extra} texts does not fit: ${now} of ${maxPending[task]} ${task} slots are taken; retry shortly or send smaller batches`,
          RETRY_AFTER_SECONDS,
        );
      }
      claimed += extra;
      setPending(task, now + extra);
    };
    // Both must be over: the handler (a client that hung up still has its inference queued) and
    // the response (speech keeps streaming after the handler returns). 'close' fires once, after
    // the last byte or on hang-up; a client that left during the API-key check has closed it already.
    let outstanding = 2;
    const settle = () => {
      if (--outstanding === 0) setPending(task, (pending.get(task) ?? claimed) - claimed);
    };
    if (ctx.res.closed) settle();
    else ctx.res.once('close', settle);
    try {
      await next();
    } finally {
      settle();
    }
  };
}
