/**
 * `GET /v1/realtime?intent=transcription` upgraded to a WebSocket: OpenAI's Realtime API for
 * live transcription (transcription-session.ts holds the protocol).
 *
 * The upgrade is answered here, outside Koa (Koa has no upgrade path), by the same rules:
 * any spelling of a /v1 path needs a key (api-boundary.ts), given as `Authorization: Bearer`
 * or, from browsers that cannot set headers, as the `openai-insecure-api-key.<key>`
 * subprotocol; refusals are the API's JSON errors. Bounds: message size (ws `maxPayload`),
 * open sessions (the next one is closed with 1013 and a reason), idle time, audio buffered per
 * session, transcriptions queued per session (the socket stops being read), and a client that
 * stops reading our events is dropped.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { bearerToken } from '../../auth/api-key.js';
import type { KeyAccess } from '../../auth/key-access.js';
import type { KeyPolicy } from '../../auth/key-store.js';
import type { RealtimeLimits } from '../../config/load-config.js';
import { BEARER_CHALLENGE, RateLimitedError, ValidationError } from '../../errors.js';
import type { LiveAudioStream, Transcriber } from '../../inference/types.js';
import type { Logger } from '../../logger.js';
import { isApiPath } from '../api-boundary.js';
import { errorType } from '../error-middleware.js';
import { jsonError, V1_COMMON_ERRORS, type Operation } from '../operation.js';
import type { RequestValidator, Validate } from '../validation.js';
import { CLIENT_EVENTS, type ClientEvent, type ClientEventType } from './realtime-events.js';
import { TranscriptionSession } from './transcription-session.js';

export const REALTIME_PATH = '/v1/realtime';
const KEY_PROTOCOL_PREFIX = 'openai-insecure-api-key.';
/** Events we could not deliver pile up in memory; a client this far behind is dropped. */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
/** RFC 6455 close codes. */
const CLOSE = { normal: 1000, goingAway: 1001, tryAgainLater: 1013 } as const;

export interface RealtimeEndpointDeps {
  access: KeyAccess;
  transcriber(modelId: string): Promise<Transcriber>;
  openAudio(options: { inputSampleRate: number; detectSpeech: boolean }): Promise<LiveAudioStream>;
  validator: RequestValidator;
  limits: RealtimeLimits;
  logger: Logger;
}

export interface RealtimeEndpoint {
  /** The `upgrade` listener of the HTTP server. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every session (server shutdown). */
  close(): void;
}

export function createRealtimeEndpoint(deps: RealtimeEndpointDeps): RealtimeEndpoint {
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: deps.limits.maxMessageBytes,
    // Browsers fail the handshake unless one offered subprotocol is chosen; never the key one.
    handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : [...offered].find((p) => !p.startsWith(KEY_PROTOCOL_PREFIX)) ?? false),
  });
  const parse = Object.fromEntries(
    Object.entries(CLIENT_EVENTS).map(([type, schema]) => [type, deps.validator.compile(schema)]),
  ) as Record<ClientEventType, Validate<(typeof CLIENT_EVENTS)[ClientEventType]>>;
  const sessions = new Set<WebSocket>();

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!isApiPath(url.pathname)) return refuse(socket, 404, 'text', 'No WebSocket endpoint here');
    const key = presentedKey(req);
    if (key === undefined) {
      return refuse(socket, 401, 'json', 'Missing API key: send "Authorization: Bearer <API_KEY>" or the subprotocol "openai-insecure-api-key.<API_KEY>"', 'unauthorized');
    }
    let policy: KeyPolicy | undefined;
    try {
      policy = await deps.access.authorize(key);
    } catch (error) {
      if (error instanceof RateLimitedError) return refuse(socket, 429, 'json', error.message, error.code, error.headers);
      throw error;
    }
    if (!policy) return refuse(socket, 401, 'json', 'Invalid, expired or revoked API key', 'unauthorized');
    const keyPolicy = policy;
    if (url.pathname !== REALTIME_PATH) return refuse(socket, 404, 'json', `No WebSocket endpoint at ${url.pathname}`, 'not_found');
    const intent = url.searchParams.get('intent');
    if (intent !== 'transcription') {
      return refuse(socket, 400, 'json', `Only transcription sessions are served: connect to ${REALTIME_PATH}?intent=transcription`, 'invalid_request');
    }
    sockets.handleUpgrade(req, socket, head, (ws) => {
      if (sessions.size >= deps.limits.maxSessions) {
        ws.close(CLOSE.tryAgainLater, `Too many realtime sessions (${deps.limits.maxSessions} open); retry later`);
        return;
      }
      serve(ws, url.searchParams.get('model') ?? undefined, keyPolicy);
    });
  };

  const serve = (ws: WebSocket, model: string | undefined, policy: KeyPolicy) => {
    sessions.add(ws);
    const send = (event: { type: string }) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_UNSENT_BYTES) {
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify({ event_id: `event_${Math.random().toString(36).slice(2, 14)}`, ...event }));
    };
    const session = new TranscriptionSession(
      {
        transcriber: deps.transcriber,
        openAudio: deps.openAudio,
        send,
        chargeTurn: () => deps.access.charge(policy),
        pause: () => ws.pause(),
        resume: () => ws.resume(),
        limits: deps.limits,
      },
      { model },
    );
    let idle: NodeJS.Timeout | undefined;
    const stillActive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => ws.close(CLOSE.normal, `No events for ${deps.limits.idleMs / 1000} s; session closed`), deps.limits.idleMs);
    };
    stillActive();
    ws.on('message', (data: RawData, isBinary: boolean) => {
      stillActive();
      const event = readEvent(data, isBinary);
      if ('error' in event) session.sendError(event.code, event.error, event.eventId);
      // As this key: its model list and usage apply to every turn the event leads to.
      else void deps.access.run(policy, () => session.handle(event));
    });
    ws.on('error', (error) => deps.logger.info('realtime connection error', { session: session.id, error: error.message }));
    ws.on('close', () => {
      clearTimeout(idle);
      sessions.delete(ws);
      session.close().catch((error: unknown) => deps.logger.error('realtime session failed to close', { session: session.id, error }));
    });
    session.start();
  };

  const readEvent = (data: RawData, isBinary: boolean): ClientEvent | { error: string; code: string; eventId?: string } => {
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
        return { error: (error as Error).message, code: (error as ValidationError).code, eventId: id };
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
  };
}

function presentedKey(req: IncomingMessage): string | undefined {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer) return bearer;
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return protocols.find((p) => p.startsWith(KEY_PROTOCOL_PREFIX))?.slice(KEY_PROTOCOL_PREFIX.length) || undefined;
}

/** An HTTP answer on a socket that asked to upgrade, in the area's error format. */
function refuse(socket: Duplex, status: number, format: 'json' | 'text', message: string, code = 'not_found', extraHeaders: Readonly<Record<string, string>> = {}): void {
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

/** The upgrade, for /openapi.json (the events themselves are the OpenAI Realtime API's). */
export function realtimeOperations(limits: RealtimeLimits): Operation[] {
  return [
    {
      method: 'get',
      path: REALTIME_PATH,
      tags: ['speech to text'],
      summary: 'Live transcription over WebSocket (OpenAI Realtime API, transcription sessions)',
      description: [
        'Upgrade to a WebSocket with `?intent=transcription` (and optionally `&model=<speech-to-text model id>`). The key goes in',
        '`Authorization: Bearer <key>` or, from browsers, as the subprotocol `openai-insecure-api-key.<key>` next to `realtime`.',
        'Client events: `transcription_session.update` (`input_audio_transcription.model|language`, `turn_detection`: `null` or',
        '`{"type": "server_vad", threshold, prefix_padding_ms, silence_duration_ms}`), `input_audio_buffer.append` (base64 PCM16,',
        '24 kHz mono), `input_audio_buffer.commit`, `input_audio_buffer.clear`. Server events: `transcription_session.created|updated`,',
        '`input_audio_buffer.speech_started|speech_stopped|committed|cleared`, `conversation.item.created`,',
        '`conversation.item.input_audio_transcription.delta|completed|failed`, `error`.',
        `Bounds: ${limits.maxSessions} sessions at once (the next is closed with code 1013 and a reason), messages of at most`,
        `${limits.maxMessageBytes} bytes (close 1009), ${limits.maxBufferSeconds} s of uncommitted audio, turns cut at ${limits.maxTurnSeconds} s,`,
        `${limits.maxPendingItems} turns awaiting transcription before the socket stops being read, closed after ${limits.idleMs / 1000} s without events.`,
      ].join(' '),
      secured: true,
      parameters: [
        { name: 'intent', in: 'query', required: true, schema: { type: 'string', enum: ['transcription'] } },
        { name: 'model', in: 'query', required: false, description: 'Speech-to-text model id (or set it in a session update).', schema: { type: 'string' } },
      ],
      responses: {
        '101': { description: 'Switched to the WebSocket protocol; the server sends `transcription_session.created`.' },
        '400': jsonError('The `intent` is not `transcription`.', ['invalid_request']),
        '401': V1_COMMON_ERRORS['401']!,
        '404': jsonError('No WebSocket endpoint at this /v1 path.', ['not_found']),
      },
    },
  ];
}
