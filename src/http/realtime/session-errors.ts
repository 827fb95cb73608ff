/** The `error` events a realtime session sends, and what it says when its key stops being valid. */
import { AppError } from '../../errors.js';
import type { RealtimeErrorBody } from './realtime-events.js';

/** What a session whose key was revoked or expired says before it ends. */
export const KEY_INVALID = {
  code: 'unauthorized',
  message: "The session's API key has been revoked or has expired; the session is closed",
  reason: 'API key revoked or expired',
} as const;

export function describeError(error: unknown): { code: string; message: string; serverFault: boolean } {
  if (error instanceof AppError) {
    const serverFault = error.status >= 500;
    return { code: error.code, message: serverFault && !error.expose ? 'Internal error' : error.message, serverFault };
  }
  return { code: 'internal_error', message: 'Internal error', serverFault: true };
}

export function errorBody(type: RealtimeErrorBody['type'], code: string, message: string, eventId?: string, param?: string): RealtimeErrorBody {
  return { type, code, message, param: param ?? null, event_id: eventId ?? null };
}
