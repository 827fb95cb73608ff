/**
 * `GET /v1/realtime?intent=transcription` upgraded to a WebSocket: OpenAI's Realtime API for
 * live transcription (transcription-session.ts holds the protocol).
 *
 * The upgrade is answered here, outside Koa (Koa has no upgrade path), by the same rules: the
 * path is read as the HTTP routers read it (`target`), any spelling of a /v1 path needs a key
 * (api-boundary.ts), given as `Authorization: Bearer` or, from browsers that cannot set
 * headers, as the `openai-insecure-api-key.<key>` subprotocol; a key whose model list allows no
 * speech-to-text model (or not `?model=`) is refused (speech-scope.ts); refusals are the API's
 * JSON errors. Bounds: message size (ws `maxPayload`), open sessions in all and per key
 * (session-slots.ts), idle time and lifetime, the bytes a session holds unprocessed
 * (session-budget.ts: the socket stops being read, then the session is closed), and a client
 * that stops reading our events is dropped. The key is checked again before every turn.
 *
 * Which protocol the session first speaks is read from the upgrade as OpenAI reads it: the beta
 * one for `OpenAI-Beta: realtime=v1` (or, from browsers, the subprotocol
 * `openai-beta.realtime-v1`), else the GA one; each session update then answers in its own shape.
 */
import Router from '@koa/router';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { bearerToken } from '../../auth/api-key.js';
import type { KeyAccess } from '../../auth/key-access.js';
import type { KeyPolicy } from '../../auth/key-store.js';
import type { RealtimeLimits } from '../../config/load-config.js';
import { type AppError, BEARER_CHALLENGE, RateLimitedError, TooManySessionsError, ValidationError } from '../../errors.js';
import type { LiveAudioOptions, LiveAudioStream, Transcriber } from '../../inference/types.js';
import type { Logger } from '../../logger.js';
import { isApiPath } from '../api-boundary.js';
import { errorType } from '../error-middleware.js';
import { V1_ROUTER_OPTIONS } from '../routes/v1-router.js';
import type { RequestValidator, Validate } from '../validation.js';
import { loggingAudioFailures } from './audio-failure-log.js';
import { CLIENT_EVENTS, type ClientEvent, type ClientEventType } from './realtime-events.js';
import { REALTIME_PATH } from './realtime-operations.js';
import { RealtimeBudget } from './session-budget.js';
import type { Dialect } from './session-dialects.js';
import { SessionSlots, slotHolder } from './session-slots.js';
import { speechScopeRefusal, type SpeechModels } from './speech-scope.js';
import { TranscriptionSession } from './transcription-session.js';

const KEY_PROTOCOL_PREFIX = 'openai-insecure-api-key.';
/** How beta clients say so: the header from SDKs, the subprotocol from browsers. */
const BETA_HEADER = /(^|[\s,;])realtime=v1\b/i;
const BETA_PROTOCOL = 'openai-beta.realtime-v1';
/** Events we could not deliver pile up in memory; a client this far behind is dropped. */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
/** RFC 6455 close codes. */
const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, tryAgainLater: 1013 } as const;

interface RealtimeEndpointDeps {
  access: KeyAccess;
  transcriber(modelId: string): Promise<Transcriber>;
  openAudio(options: LiveAudioOptions): Promise<LiveAudioStream>;
  /** The manifest's models and aliases, for the key's model list at the upgrade. */
  models: SpeechModels;
  /** The path and query of the request target as the HTTP routers read it (Koa's ctx.path). */
  target(req: IncomingMessage): { path: string; query: URLSearchParams };
  validator: RequestValidator;
  limits: RealtimeLimits;
  logger: Logger;
}

export interface RealtimeEndpoint {
  /** The `upgrade` listener of the HTTP server. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every session (server shutdown). */
  close(): void;
  /** Open sessions and the bytes they hold unprocessed (session-budget.ts). */
  stats(): { sessions: number; heldBytes: number; peakSessionBytes: number };
}

export function createRealtimeEndpoint(deps: RealtimeEndpointDeps): RealtimeEndpoint {
  const { limits } = deps;
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxMessageBytes,
    // Browsers fail the handshake unless one offered subprotocol is chosen; never the key one.
    handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : ([...offered].find((p) => !p.startsWith(KEY_PROTOCOL_PREFIX)) ?? false)),
  });
  const parse = Object.fromEntries(Object.entries(CLIENT_EVENTS).map(([type, schema]) => [type, deps.validator.compile(schema)])) as Record<
    ClientEventType,
    Validate<(typeof CLIENT_EVENTS)[ClientEventType]>
  >;
  // Matched as the /v1 routes are (a trailing slash too), on the path as they read it (`target`).
  const route = new Router({ ...V1_ROUTER_OPTIONS }).get(REALTIME_PATH.slice(V1_ROUTER_OPTIONS.prefix.length), () => {});
  const sessions = new Set<WebSocket>();
  const slots = new SessionSlots(limits);
  const budget = new RealtimeBudget(limits);

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const { path, query } = deps.target(req);
    if (!isApiPath(path)) return refuse(socket, 404, 'text', 'No WebSocket endpoint here');
    const key = presentedKey(req);
    if (key === undefined) {
      return refuse(
        socket,
        401,
        'json',
        'Missing API key: send "Authorization: Bearer <API_KEY>" or the subprotocol "openai-insecure-api-key.<API_KEY>"',
        'unauthorized',
      );
    }
    let policy: KeyPolicy | undefined;
    try {
      policy = await deps.access.authorize(key);
    } catch (error) {
      if (error instanceof RateLimitedError) return refuseWith(socket, error);
      throw error;
    }
    if (!policy) return refuse(socket, 401, 'json', 'Invalid, expired or revoked API key', 'unauthorized');
    const keyPolicy = policy;
    if (!route.match(path, 'GET').route) return refuse(socket, 404, 'json', `No WebSocket endpoint at ${path}`, 'not_found');
    if (query.get('intent') !== 'transcription') {
      return refuse(socket, 400, 'json', `Only transcription sessions are served: connect to ${REALTIME_PATH}?intent=transcription`, 'invalid_request');
    }
    const model = query.get('model') ?? undefined;
    const outOfScope = await speechScopeRefusal(keyPolicy, model, deps.models);
    if (outOfScope) return refuseWith(socket, outOfScope);
    const holder = slotHolder(keyPolicy, key);
    if (slots.full(holder) === 'key') return refuseWith(socket, new TooManySessionsError(limits.maxSessionsPerKey));
    sockets.handleUpgrade(req, socket, head, (ws) => {
      const full = slots.full(holder);
      if (full) {
        const reason =
          full === 'server'
            ? `Too many realtime sessions (${limits.maxSessions} open); retry later`
            : new TooManySessionsError(limits.maxSessionsPerKey).message;
        ws.close(CLOSE.tryAgainLater, reason);
        return;
      }
      serve(ws, { model, dialect: askedDialect(req), policy: keyPolicy, key, release: slots.take(holder) });
    });
  };

  const serve = (ws: WebSocket, opened: { model: string | undefined; dialect: Dialect; policy: KeyPolicy; key: string; release: () => void }) => {
    sessions.add(ws);
    // The key as last verified: each turn runs as it (its model list, its usage).
    let policy = opened.policy;
    let ended = false;
    const send = (event: { type: string }) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_UNSENT_BYTES) {
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify({ event_id: `event_${Math.random().toString(36).slice(2, 14)}`, ...event }));
    };
    const held = budget.open({
      pause: () => ws.pause(),
      resume: () => ws.resume(),
      overflow: (bytes) => {
        session.sendError(
          'session_overloaded',
          `The session holds ${bytes} bytes of input not yet processed, over its bound of ${limits.sessionMaxBytes}; send audio no faster than it is processed`,
        );
        end(CLOSE.policy, 'Too much input waiting to be processed');
      },
    });
    const session = new TranscriptionSession(
      {
        transcriber: (modelId) => deps.access.run(policy, opened.key, () => deps.transcriber(modelId)),
        checkModel: async (name) => void (await deps.models.resolve(name, 'speech-to-text')),
        openAudio: loggingAudioFailures(deps.openAudio, deps.logger, () => session.id),
        send,
        authorizeTurn: async () => {
          const current = await deps.access.authorize(opened.key);
          if (current) policy = current;
          return current !== undefined;
        },
        end: (reason) => end(CLOSE.policy, reason),
        budget: held,
        limits,
      },
      { model: opened.model, dialect: opened.dialect, expiresAt: Math.floor(Date.now() / 1000 + limits.maxSessionSeconds) },
    );
    let idle: NodeJS.Timeout | undefined;
    const stillActive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => end(CLOSE.normal, `No events for ${limits.idleMs / 1000} s; session closed`), limits.idleMs);
    };
    const lifetime = setTimeout(() => {
      session.sendError('session_expired', `Sessions last at most ${limits.maxSessionSeconds} s; reconnect to go on`);
      end(CLOSE.normal, `Session lifetime of ${limits.maxSessionSeconds} s reached`);
    }, limits.maxSessionSeconds * 1000);
    // Between turns too: a client that streams without ever ending a turn still loses the session.
    const keyCheck = setInterval(() => {
      deps.access.verify(opened.key).then(
        (current) => (current ? (policy = current) : session.keyRevoked()),
        (error: unknown) => deps.logger.warn('realtime key check failed', { session: session.id, error }),
      );
    }, limits.keyCheckMs);
    /** Stops the session's work and frees its memory; once, when the server ends it or the socket closes. */
    const stop = () => {
      clearTimeout(idle);
      clearTimeout(lifetime);
      clearInterval(keyCheck);
      held.close();
      session.close().catch((error: unknown) => deps.logger.error('realtime session failed to close', { session: session.id, error }));
    };
    const end = (code: number, reason: string) => {
      if (ended) return;
      ended = true;
      ws.close(code, reason);
      stop();
    };
    stillActive();
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (ended) return;
      stillActive();
      const bytes = byteLength(data);
      held.messageReceived(bytes);
      if (ended) return;
      const event = readEvent(data, isBinary);
      if ('error' in event) {
        held.messageHandled(bytes);
        session.sendError(event.code, event.error, event.eventId, event.param);
        return;
      }
      // As this key: its model list and usage apply to every turn the event leads to.
      void deps.access.run(policy, opened.key, () => session.handle(event)).finally(() => held.messageHandled(bytes));
    });
    ws.on('error', (error) => deps.logger.info('realtime connection error', { session: session.id, error: error.message }));
    ws.on('close', () => {
      // The slot is the socket's: one the client keeps open after our close frame still counts.
      sessions.delete(ws);
      opened.release();
      if (ended) return;
      ended = true;
      stop();
    });
    session.start();
  };

  const readEvent = (data: RawData, isBinary: boolean): ClientEvent | { error: string; code: string; eventId?: string; param?: string } => {
    if (isBinary) return { error: 'Send events as JSON text messages', code: 'invalid_json' };
    let value: unknown;
    try {
      value = JSON.parse(data.toString());
    } catch {
      return { error: 'The message is not valid JSON', code: 'invalid_json' };
    }
    const { type, event_id: eventId } = (value ?? {}) as { type?: unknown; event_id?: unknown };
    const id = typeof eventId === 'string' ? eventId.slice(0, 128) : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(parse, type)) {
      return { error: `Unknown event type; expected one of ${Object.keys(CLIENT_EVENTS).join(', ')}`, code: 'unknown_event', eventId: id };
    }
    try {
      return parse[type as ClientEventType](value) as ClientEvent;
    } catch (error) {
      if (error instanceof ValidationError || (error instanceof Error && 'status' in error)) {
        return { error: (error as Error).message, code: (error as ValidationError).code, eventId: id, param: (error as ValidationError).param };
      }
      throw error;
    }
  };

  return {
    upgrade: (req, socket, head) => {
      upgrade(req, socket, head).catch((error: unknown) => {
        deps.logger.error('realtime upgrade failed', { error });
        refuse(socket, 500, 'json', 'Internal Server Error', 'internal_error');
      });
    },
    close: () => {
      for (const ws of sessions) ws.close(CLOSE.goingAway, 'Server shutting down');
    },
    stats: () => ({ sessions: sessions.size, heldBytes: budget.heldBytes, peakSessionBytes: budget.peakSessionBytes }),
  };
}

function byteLength(data: RawData): number {
  return Array.isArray(data) ? data.reduce((sum, part) => sum + part.byteLength, 0) : data.byteLength;
}

function askedDialect(req: IncomingMessage): Dialect {
  const header = req.headers['openai-beta'];
  if (BETA_HEADER.test(Array.isArray(header) ? header.join(',') : (header ?? ''))) return 'beta';
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return protocols.includes(BETA_PROTOCOL) ? 'beta' : 'ga';
}

function presentedKey(req: IncomingMessage): string | undefined {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer) return bearer;
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return protocols.find((p) => p.startsWith(KEY_PROTOCOL_PREFIX))?.slice(KEY_PROTOCOL_PREFIX.length) || undefined;
}

function refuseWith(socket: Duplex, error: AppError): void {
  refuse(socket, error.status, 'json', error.message, error.code, error.headers);
}

/** An HTTP answer on a socket that asked to upgrade, in the area's error format. */
function refuse(
  socket: Duplex,
  status: number,
  format: 'json' | 'text',
  message: string,
  code = 'not_found',
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  if (!socket.writable) return void socket.destroy();
  // The body every other /v1 error has (error-middleware.ts).
  const body = format === 'json' ? JSON.stringify({ error: { message, type: errorType(status), code } }) : message;
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${format === 'json' ? 'application/json' : 'text/plain'}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...(status === 401 ? [`WWW-Authenticate: ${BEARER_CHALLENGE}`] : []),
    ...Object.entries(extraHeaders).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
