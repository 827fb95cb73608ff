/**
 * Bounds the inference requests of each task that the server holds at once (running, waiting in
 * a model queue, or still uploading), so a flood cannot grow memory without limit: 25 MB audio
 * uploads and queued micro-batches otherwise pile up until the process dies. A request over the
 * bound is refused at once with 503 `server_busy` and a Retry-After, before its body is read.
 *
 * A slot is held until both the handler has settled and the response is closed: synthesised
 * speech streams after the handler is done, and a client that hangs up mid-request leaves its
 * work queued.
 */
import type { Middleware } from 'koa';
import { ServerBusyError } from '../errors.js';
import type { Task } from '../inference/types.js';
import type { AdmissionObserver } from './metrics.js';

/** Seconds a refused client is asked to wait; inference requests take about this long. */
const RETRY_AFTER_SECONDS = 1;

export type Admission = (task: Task) => Middleware;

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
    // Both must be over: the handler (a client that hung up still has its inference queued) and
    // the response (speech keeps streaming after the handler returns). 'close' fires once, after
    // the last byte or on hang-up; a client that left during the API-key check has closed it already.
    let outstanding = 2;
    const settle = () => {
      if (--outstanding === 0) setPending(task, (pending.get(task) ?? 1) - 1);
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
