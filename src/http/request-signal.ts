/**
 * A request's AbortSignal: it aborts when the client closes the connection before its response
 * is complete (curl ^C, an SDK time-out, the slow-client guard). Routes pass it to every model
 * call, so work nobody will read is dropped instead of holding the CPU and an admission slot.
 */
import { setMaxListeners } from 'node:events';
import type { Context } from 'koa';
import { ClientClosedError } from '../errors.js';

const signals = new WeakMap<Context, AbortSignal>();

export function requestSignal(ctx: Context): AbortSignal {
  let signal = signals.get(ctx);
  if (signal) return signal;
  const controller = new AbortController();
  const closed = () => {
    if (!ctx.res.writableFinished) controller.abort(new ClientClosedError());
  };
  if (ctx.res.closed) closed();
  else ctx.res.once('close', closed);
  signal = controller.signal;
  // Each text of a batch (2048 embeddings) listens on it while it waits in a micro-batch: many
  // listeners are expected, not a leak.
  setMaxListeners(0, signal);
  signals.set(ctx, signal);
  return signal;
}
