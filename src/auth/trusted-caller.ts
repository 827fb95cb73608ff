/**
 * Requests the server makes to itself (a batch's lines, src/batches/line-dispatch.ts) run as
 * the key that owns the work, with its policy (model list, rate limit) but without presenting
 * the key, which is never stored. The dispatcher marks such a request with this symbol on the
 * request object itself: no header or byte a client sends can set it.
 */
import type { IncomingMessage } from 'node:http';
import type { KeyPolicy } from './key-store.js';

export interface TrustedCaller {
  policy: KeyPolicy;
  /** Who its model calls are made for (requester.ts): a batch's lines take turns as their own requester. */
  requester: string;
}

const TRUSTED_CALLER = Symbol('trusted in-process caller');

export function markTrusted(req: IncomingMessage, caller: TrustedCaller): void {
  (req as IncomingMessage & { [TRUSTED_CALLER]?: TrustedCaller })[TRUSTED_CALLER] = caller;
}

export function trustedCaller(req: IncomingMessage): TrustedCaller | undefined {
  return (req as IncomingMessage & { [TRUSTED_CALLER]?: TrustedCaller })[TRUSTED_CALLER];
}
