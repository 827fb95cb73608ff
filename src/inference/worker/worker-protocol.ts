/**
 * Messages between a WorkerClient (main thread) and serveWorker (inside the worker).
 * Everything here crosses postMessage, so it must be structured-cloneable.
 */
import type { WireError } from './wire-error.js';

export interface WorkerCall {
  type: 'call';
  id: number;
  method: string;
  payload: unknown;
}

/**
 * The caller no longer wants the answer to call `id` (its client went away): the worker aborts
 * that call's signal, so queued work is skipped and running work stops at its next step.
 */
export interface WorkerCancel {
  type: 'cancel';
  id: number;
}

export type WorkerRequest = WorkerCall | WorkerCancel;

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: WireError };

/** The first message a worker sends: its setup finished, or failed (and the worker will exit). */
export type WorkerStartup = { type: 'ready' } | { type: 'failed'; error: WireError };

/**
 * A handler result that moves `transfer` (e.g. a Float32Array's buffer) to the other side
 * instead of copying it. The sender loses access to those buffers.
 */
export class Transferable<T> {
  constructor(
    readonly value: T,
    readonly transfer: readonly ArrayBuffer[],
  ) {}
}

export function withTransfer<T>(value: T, transfer: readonly ArrayBuffer[]): Transferable<T> {
  return new Transferable(value, transfer);
}
