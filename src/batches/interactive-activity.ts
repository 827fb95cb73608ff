/**
 * When interactive inference requests last arrived, so batch work can step aside for them: while
 * one arrived within `quietMs`, the batch runner keeps one line running instead of its full
 * concurrency. The models' fair queues already give an interactive request its turn beside the
 * batch's lines; fewer lines in flight is what keeps its wait near its idle latency.
 */
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { trustedCaller } from '../auth/trusted-caller.js';

export class InteractiveActivity {
  readonly #quietMs: number;
  #last = Number.NEGATIVE_INFINITY;
  #inFlight = 0;

  constructor(quietMs = 1_000) {
    this.#quietMs = quietMs;
  }

  /** Whether an interactive request is running or arrived within the quiet time. */
  recent(): boolean {
    return this.#inFlight > 0 || performance.now() - this.#last < this.#quietMs;
  }

  /** Counts the requests it wraps that are not a batch's own lines. */
  middleware(): Middleware {
    return async (ctx, next) => {
      if (isBatchLine(ctx.req)) return next();
      this.#inFlight++;
      this.#last = performance.now();
      try {
        await next();
      } finally {
        this.#inFlight--;
        this.#last = performance.now();
      }
    };
  }
}

const isBatchLine = (req: IncomingMessage) => trustedCaller(req) !== undefined;
