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
import type { Socket } from 'node:net';
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
  /** UNREAD until the first sweep, so a stalled response is cut off up to one sweep period later. */
  lastBytesWritten: number;
  lastWriteAt: number;
}

/** Not yet read: the first sweep reads it (socket.bytesWritten copies the socket's write queue). */
const UNREAD = -1;

export function slowClientGuard(timeouts: ClientTimeouts): Middleware {
  const watches = new Set<Watch>();
  /** The watch each connection's requests reuse, one after another (see `watchFor`). */
  const connectionWatches = new WeakMap<Socket, Watch>();
  let sweeper: NodeJS.Timeout | undefined;
  const period = Math.min(1_000, Math.max(10, Math.floor(Math.min(timeouts.bodyIdleMs, timeouts.responseStallMs) / 4)));

  // A request leaves the set at the first sweep after its body is in and its response written
  // (or its connection is gone); one answered early (401, 413) may still have a body arriving,
  // which is watched until it ends. No listener per request: a sweep walks at most the requests
  // of one period, while a 'finish' listener cost every request (bench:http).
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

  return (ctx, next) => {
    watches.add(watchFor(connectionWatches, ctx.req, ctx.res, Date.now()));
    sweeper ??= setInterval(sweep, period).unref();
    return next();
  };
}

/**
 * A kept-alive connection carries its requests one after another, so the watch of its last
 * request is reused once that request is over: no allocation per request. A pipelined request
 * (its predecessor still answering on the same connection) gets a watch of its own.
 */
function watchFor(connectionWatches: WeakMap<Socket, Watch>, req: IncomingMessage, res: ServerResponse, now: number): Watch {
  const socket = req.socket;
  const bytesRead = socket.bytesRead;
  const previous = connectionWatches.get(socket);
  if (previous?.req.complete && previous.res.writableFinished) {
    previous.req = req;
    previous.res = res;
    previous.startedAt = previous.lastReadAt = previous.lastWriteAt = now;
    previous.bodyBytesAtStart = previous.lastBytesRead = bytesRead;
    previous.lastBytesWritten = UNREAD;
    return previous;
  }
  const watch: Watch = {
    req,
    res,
    startedAt: now,
    bodyBytesAtStart: bytesRead,
    lastBytesRead: bytesRead,
    lastReadAt: now,
    lastBytesWritten: UNREAD,
    lastWriteAt: now,
  };
  if (previous === undefined) connectionWatches.set(socket, watch);
  return watch;
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
