/**
 * Who a model call is made for: the API key of the request being handled, carried in an
 * AsyncLocalStorage from the key check (src/auth/key-access.ts) to ModelWorker.call, which sends it
 * with the call so the worker's queue can share the model fairly between keys (fair-queue.ts).
 * Inference does not depend on auth for it: the key check names the requester, the worker seam
 * only reads the name.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Runs `work` with `requester` (an opaque name, e.g. `key 12`) as the one model calls are made for. */
export function asRequester<T>(requester: string, work: () => T): T {
  return current.run(requester, work);
}

/** The requester of the work running now; undefined outside a keyed request (no API keys configured). */
export function currentRequester(): string | undefined {
  return current.getStore();
}

/** Names a batch's lines as a requester of their own (batch-runner.ts), apart from the key's own requests. */
export const backgroundRequester = (requester: string) => `batch ${requester}`;

/** A batch's lines: model queues serve every other requester's waiting work before theirs. */
export const isBackground = (requester: string) => requester.startsWith('batch ');
