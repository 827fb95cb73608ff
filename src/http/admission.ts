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
 *
 * A route whose body may be large (2048 embedding texts: megabytes) says so with `maxBodyBytes`,
 * and its task's `bodyBytesPerSlot` (tasks.ts) says how much body one slot stands for: the door
 * then claims one slot per that many bytes of the declared Content-Length, or of the route's
 * limit when the length is unknown (chunked) or the body compressed (it may inflate to the
 * limit). So the bodies held while uploading stay bounded by the slots too, however large the
 * route's limit.
 *
 * One key cannot take every slot: an eighth of each task's slots (none under 8) is kept for other
 * keys at the door, so a key that fills its task's queue with costly requests still leaves room
 * for another key's request, which the model's fair queue then serves in turn (fair-queue.ts). A
 * batch's claim may use them (a batch is admitted whole or not at all; its texts take turns in the
 * micro-batcher). Without API keys there is one requester, and every slot is its.
 */
import type { Context, Middleware } from 'koa';
import { PayloadTooLargeError, ServerBusyError } from '../errors.js';
import { bodyBytesPerSlot } from '../inference/tasks.js';
import type { Task } from '../inference/types.js';
import { currentRequester } from '../requester.js';
import type { AdmissionObserver } from './metrics.js';

/** Seconds a refused client is asked to wait; inference requests take about this long. */
const RETRY_AFTER_SECONDS = 1;

interface AdmissionDoor {
  /** The route's body limit; needed by the routes of a task with `bodyBytesPerSlot`. */
  maxBodyBytes?: number;
}

export type Admission = (task: Task, door?: AdmissionDoor) => Middleware;

/** Where the admission middleware leaves the claim of more slots for the request's batch. */
const BATCH_CLAIM = Symbol('admission batch claim');

/**
 * Claims what the request's slots lack of `size` (the door took one, or one per body share), or
 * throws 503 `server_busy`: a batch is admitted whole or not at all. The slots are freed with the request's.
 */
export function claimBatch(ctx: Context, size: number): void {
  const claim = (ctx.state as Record<symbol, ((total: number) => void) | undefined>)[BATCH_CLAIM];
  if (!claim) throw new Error('claimBatch needs the admission middleware in front of the route');
  claim(size);
}

/**
 * Slots the door claims: one, or one per `perSlot` bytes of the body the request declares; a
 * body of unknown size (chunked, or compressed: it may inflate to the route's limit) claims as
 * one of the limit's size, at most every slot.
 */
function doorSlots(ctx: Context, perSlot: number | undefined, maxBodyBytes: number | undefined, slots: number): { slots: number; declared?: number } {
  if (perSlot === undefined || maxBodyBytes === undefined) return { slots: 1 };
  const header = ctx.get('Content-Length');
  const declared = Number(header);
  if (header === '' || !Number.isSafeInteger(declared) || declared < 0 || ctx.get('Content-Encoding') !== '') {
    return { slots: Math.min(slots, Math.ceil(maxBodyBytes / perSlot)) };
  }
  // A body over the route's limit is the body parser's 413 to give.
  return { slots: Math.max(1, Math.ceil(Math.min(declared, maxBodyBytes) / perSlot)), declared };
}

/** Slots of a task that one key may not take at the door: kept for other keys. */
function keptForOthers(slots: number): number {
  return Math.floor(slots / 8);
}

export function createAdmission(maxPending: Readonly<Record<Task, number>>, observer?: AdmissionObserver): Admission {
  const pending = new Map<Task, number>();
  /** Slots held per task and key (requester.ts), for the share kept for other keys. */
  const perKey = new Map<Task, Map<string, number>>();
  const addForKey = (task: Task, requester: string, count: number) => {
    let keys = perKey.get(task);
    if (!keys) perKey.set(task, (keys = new Map()));
    const held = (keys.get(requester) ?? 0) + count;
    if (held > 0) keys.set(requester, held);
    else keys.delete(requester);
  };
  const setPending = (task: Task, count: number) => {
    pending.set(task, count);
    observer?.pending(task, count);
  };
  return (task, door = {}) => {
    const perSlot = bodyBytesPerSlot(task);
    if (perSlot !== undefined && door.maxBodyBytes === undefined) throw new Error(`routes of ${task} must tell admission their maxBodyBytes`);
    return async (ctx, next) => {
      const held = pending.get(task) ?? 0;
      const { slots: entry, declared } = doorSlots(ctx, perSlot, door.maxBodyBytes, maxPending[task]);
      if (entry > maxPending[task]) {
        // Waiting would never help: say so instead of asking the client to retry.
        throw new PayloadTooLargeError(
          `a body of ${declared} bytes is more than this server holds at once (${maxPending[task]} ${task} slots of ${perSlot} bytes); send smaller batches`,
        );
      }
      if (held + entry > maxPending[task]) {
        observer?.rejected(task);
        throw new ServerBusyError(`${held} ${task} requests are already in progress or queued; retry shortly`, RETRY_AFTER_SECONDS);
      }
      const requester = currentRequester();
      const mine = requester === undefined ? 0 : (perKey.get(task)?.get(requester) ?? 0);
      const kept = keptForOthers(maxPending[task]);
      if (requester !== undefined && kept > 0 && mine + entry > maxPending[task] - kept) {
        observer?.rejected(task);
        throw new ServerBusyError(
          `this API key already holds ${mine} of the ${maxPending[task]} ${task} slots, and ${kept} ${kept === 1 ? 'is' : 'are'} kept for other keys; retry shortly`,
          RETRY_AFTER_SECONDS,
        );
      }
      setPending(task, held + entry);
      if (requester !== undefined) addForKey(task, requester, entry);
      let claimed = entry;
      (ctx.state as Record<symbol, (total: number) => void>)[BATCH_CLAIM] = (total) => {
        const extra = total - claimed;
        if (extra <= 0) return;
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
        if (requester !== undefined) addForKey(task, requester, extra);
      };
      // Both must be over: the handler (a client that hung up still has its inference queued) and
      // the response (speech keeps streaming after the handler returns). 'close' fires once, after
      // the last byte or on hang-up; a client that left during the API-key check has closed it already.
      let outstanding = 2;
      const settle = () => {
        if (--outstanding > 0) return;
        setPending(task, (pending.get(task) ?? claimed) - claimed);
        if (requester !== undefined) addForKey(task, requester, -claimed);
      };
      if (ctx.res.closed) settle();
      else ctx.res.once('close', settle);
      try {
        await next();
      } finally {
        settle();
      }
    };
  };
}
