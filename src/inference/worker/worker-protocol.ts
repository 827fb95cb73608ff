/**
 * Messages between a WorkerClient (main thread) and serveWorker (inside the worker).
 * Everything here crosses postMessage, so it must be structured-cloneable.
 */
import { isMarkedAsUntransferable } from 'node:worker_threads';
import type { WireError } from './wire-error.js';

/** A worker's `workerData`: its setup's `init`, and the native-call state it shares with its client (native-calls.ts). */
export interface WorkerData<Init> {
  init: Init;
  nativeCalls: Int32Array;
}

interface WorkerCall {
  type: 'call';
  id: number;
  method: string;
  payload: unknown;
  /** Who the call is for (requester.ts): the worker's queue shares its thread fairly between them. */
  requester?: string;
}

/**
 * The caller no longer wants the answer to call `id` (its client went away, or its deadline
 * passed): the worker aborts that call's signal, so queued work is skipped and running work
 * stops at its next step. The worker still answers the call once it has let go of it, which
 * tells the client the thread is not stuck.
 */
interface WorkerCancel {
  type: 'cancel';
  id: number;
}

/** Free what the worker holds (its `dispose`), once the queued jobs are done; answered as call `id`. */
interface WorkerDispose {
  type: 'dispose';
  id: number;
}

export type WorkerRequest = WorkerCall | WorkerCancel | WorkerDispose;

export type WorkerResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError };

/** A progress event of call `id` (CallContext.progress), sent before that call's response. */
export interface WorkerProgress {
  type: 'progress';
  id: number;
  event: unknown;
}

export type WorkerMessage = WorkerResponse | WorkerProgress;

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

/**
 * The buffers of a transfer list that can move; the rest are copied with the message. Node marks
 * Buffer's shared pool (where a small Buffer.from or Buffer.concat lands) untransferable, and a
 * list naming it fails the whole message with a DataCloneError. An empty buffer gains nothing from
 * a move, and a detached one (moved by an earlier call) would vanish from the message without a
 * word; cloned, it fails at the sender instead.
 */
export function movableBuffers(transfer: readonly ArrayBuffer[]): ArrayBuffer[] {
  return transfer.filter((buffer) => buffer.byteLength > 0 && !isMarkedAsUntransferable(buffer));
}
