/**
 * Drops clients that are too slow to be served: a request body that stalls (no byte for
 * `bodyIdleMs`, or a body shorter than its Content-Length) or trickles (under
 * `bodyMinBytesPerSecond` on average once `bodyRateGraceMs` have passed) answers 408, and a
 * response the client stops reading is abandoned after `responseStallMs`. Without this, 16
 * uploads at 1 byte/s held every speech-to-text slot until Node's 300-s request time-out.
 *
 * Progress is read from the socket's byte counters, so the check works whoever reads the body
 * (JSON parser, multipart parser, raw reader) and never changes how it is read. One sweep timer
 * serves every watched request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { ClientTimeouts } from '../config/load-config.js';
import { RequestTimeoutError } from '../errors.js';

interface Watch {
  req: IncomingMessage;
  res: ServerResponse;
  startedAt: number;
  bodyBytesAtStart: number;
  lastBytesRead: number;
  lastReadAt: number;
  lastBytesWritten: number;
  lastWriteAt: number;
}

export function slowClientGuard(timeouts: ClientTimeouts): Middleware {
  const watches = new Set<Watch>();
  let sweeper: NodeJS.Timeout | undefined;
  const period = Math.min(1_000, Math.max(10, Math.floor(Math.min(timeouts.bodyIdleMs, timeouts.responseStallMs) / 4)));

  const sweep = () => {
    const now = Date.now();
    for (const watch of watches) {
      const verdict = check(watch, now, timeouts);
      if (verdict === 'done') watches.delete(watch);
      else if (verdict !== 'ok') {
        watches.delete(watch);
        verdict();
      }
    }
    if (watches.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return async (ctx, next) => {
    const socket = ctx.req.socket;
    const now = Date.now();
    const watch: Watch = {
      req: ctx.req,
      res: ctx.res,
      startedAt: now,
      bodyBytesAtStart: socket.bytesRead,
      lastBytesRead: socket.bytesRead,
      lastReadAt: now,
      lastBytesWritten: socket.bytesWritten,
      lastWriteAt: now,
    };
    watches.add(watch);
    // Most requests end here, with nothing left to watch. One answered early (401, 413) may
    // still have a body arriving, which the sweep keeps watching until it ends.
    ctx.res.once('finish', () => {
      if (ctx.req.complete) watches.delete(watch);
    });
    sweeper ??= setInterval(sweep, period).unref();
    await next();
  };
}

type Verdict = 'ok' | 'done' | (() => void);

function check(watch: Watch, now: number, timeouts: ClientTimeouts): Verdict {
  const { req, res } = watch;
  const socket = req.socket;
  if (!socket || socket.destroyed) return 'done';

  // Also after an early answer (401, 413): Node then drains the unread body on a kept-alive
  // connection, and a trickling client would hold that connection as long as it likes.
  if (!req.complete) {
    if (socket.bytesRead !== watch.lastBytesRead) {
      watch.lastBytesRead = socket.bytesRead;
      watch.lastReadAt = now;
    }
    const received = socket.bytesRead - watch.bodyBytesAtStart;
    const elapsed = now - watch.startedAt;
    if (now - watch.lastReadAt >= timeouts.bodyIdleMs) {
      return () => failBody(watch, `No request body bytes arrived for ${timeouts.bodyIdleMs / 1000} s; the body is incomplete`);
    }
    if (elapsed >= timeouts.bodyRateGraceMs && (received * 1000) / elapsed < timeouts.bodyMinBytesPerSecond) {
      return () => failBody(watch, `The request body arrived slower than ${timeouts.bodyMinBytesPerSecond} bytes/s; send it faster or in a smaller file`);
    }
    return 'ok';
  }
  if (res.writableFinished) return 'done';

  // The body is in; now only a response the client will not read can hold the request.
  if (socket.bytesWritten !== watch.lastBytesWritten || !res.writableNeedDrain) {
    watch.lastBytesWritten = socket.bytesWritten;
    watch.lastWriteAt = now;
    return 'ok';
  }
  return now - watch.lastWriteAt >= timeouts.responseStallMs ? () => socket.destroy() : 'ok';
}

/**
 * Fails whatever is reading the body with a 408 the error middleware answers (the connection is
 * then closed, as the rest of the body is never read). If nothing is reading it, or the answer
 * has already gone out, nobody can be told: the connection is closed.
 */
function failBody({ req, res }: Watch, message: string): void {
  if (!res.headersSent && req.listenerCount('error') > 0 && req.readableFlowing !== null) {
    req.emit('error', new RequestTimeoutError(message));
  } else {
    req.socket.destroy();
  }
}
