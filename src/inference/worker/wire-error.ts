/**
 * Errors cross the worker boundary as plain data and are rebuilt on the other side, so an
 * AppError thrown in a worker (e.g. UndecodableAudioError → 400) reaches the error middleware
 * with its class, status and code intact (an AppError subclass not exported by src/errors.ts
 * comes back as a plain AppError with the same status and code). Anything else becomes a plain Error (→ generic 500).
 */
import * as errors from '../../errors.js';
import { AppError } from '../../errors.js';

export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** Present when the error was an AppError. */
  status?: number;
  code?: string;
  /** Whether clients may read the message (a 503 written for them, e.g. ModelFilesError); absent: below 500. */
  expose?: boolean;
  /** The AppError's own text fields (e.g. `modelId`, which the error middleware names in a 503). */
  fields?: Record<string, string>;
}

type AppErrorClass = abstract new (...args: never[]) => AppError;

/** Every AppError subclass exported by src/errors.ts, by class name, so new ones need no registration. */
const APP_ERROR_CLASSES: ReadonlyMap<string, AppErrorClass> = new Map(
  (Object.values(errors) as unknown[]).filter((value): value is AppErrorClass => isAppErrorClass(value)).map((cls) => [cls.name, cls]),
);

function isAppErrorClass(value: unknown): value is AppErrorClass {
  return typeof value === 'function' && (value === AppError || value.prototype instanceof AppError);
}

/** Sent as WireError's own members, so not again among its fields. */
const WIRE_KEYS = new Set(['name', 'message', 'stack', 'status', 'code', 'expose']);

export function toWireError(error: unknown): WireError {
  if (error instanceof AppError) {
    const fields = Object.fromEntries(
      Object.entries(error).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !WIRE_KEYS.has(entry[0])),
    );
    return { name: error.constructor.name, message: error.message, stack: error.stack, status: error.status, code: error.code, expose: error.expose, fields };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

export function fromWireError(wire: WireError): Error {
  if (wire.status !== undefined && wire.code !== undefined) {
    // A subclass defined outside src/errors.ts still keeps its status and code as an AppError.
    const cls = APP_ERROR_CLASSES.get(wire.name) ?? AppError;
    // Rebuilt without calling the constructor: subclasses take different arguments, and the
    // message was already formatted in the worker.
    const error = Object.create(cls.prototype) as AppError;
    Object.assign(error, wire.fields);
    Object.defineProperties(error, {
      name: { value: wire.name, writable: true, configurable: true },
      message: { value: wire.message, writable: true, configurable: true },
      status: { value: wire.status, enumerable: true },
      code: { value: wire.code, enumerable: true },
      expose: { value: wire.expose ?? wire.status < 500, enumerable: true },
      stack: { value: wire.stack, writable: true, configurable: true },
    });
    return error;
  }
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.stack) error.stack = `${wire.stack}\n    --- rethrown from worker thread ---`;
  return error;
}
