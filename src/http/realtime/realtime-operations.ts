/** The WebSocket upgrade of live transcription, as /openapi.json describes it (realtime-endpoint.ts serves it). */
import type { RealtimeLimits } from '../../config/load-config.js';
import { jsonError, V1_COMMON_ERRORS, type Operation } from '../operation.js';

export const REALTIME_PATH = '/v1/realtime';

const MIB = 1024 * 1024;

/** The upgrade (the events themselves are the OpenAI Realtime API's). */
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
        'A key whose model list (`keys create --models`) holds no speech-to-text model or alias, or not the `model` asked for, is refused (403).',
        'Both shapes of the protocol are spoken. GA (the default, as current SDKs speak it): `session.update` with',
        '`session.type: "transcription"` and `session.audio.input.{format, transcription, turn_detection}`, answered by',
        '`session.created|updated`; a committed turn is announced by `conversation.item.added` and `.done`. Beta (for an upgrade with',
        '`OpenAI-Beta: realtime=v1` or the subprotocol `openai-beta.realtime-v1`): `transcription_session.update` with',
        '`input_audio_format`, `input_audio_transcription`, `turn_detection`, answered by `transcription_session.created|updated`, and',
        '`conversation.item.created`. Each update is answered in its own shape. `format`: `audio/pcm` (PCM16, 24 kHz mono; beta',
        '`pcm16`), `audio/pcmu` or `audio/pcma` (G.711 at 8 kHz; beta `g711_ulaw`, `g711_alaw`); `transcription`: `model`, `language`,',
        '`prompt` (each turn\'s previous text, as on the HTTP routes); `turn_detection`: `null` (the client commits), `{"type": "server_vad", threshold, prefix_padding_ms,',
        'silence_duration_ms}` or `{"type": "semantic_vad", eagerness}` (the same Silero VAD, eagerness choosing the silence);',
        '`include: ["item.input_audio_transcription.logprobs"]` adds the tokens\' `logprobs` to each turn\'s `.delta` and `.completed`;',
        '`noise_reduction` is echoed as set, not applied (no noise filter here); a `model` that is no speech-to-text model or alias',
        '(or is not installed) refuses the update with an `error` event naming the field (a `?model=` so: an `error` event after `session.created`). Either way: `input_audio_buffer.append` (strict base64 audio: standard',
        'alphabet, `=` only at the end, whole groups of 4; anything else, a `data:` URL or hex, is dropped with an `error` event whose `param` is `audio`),',
        '`input_audio_buffer.commit`, `input_audio_buffer.clear`; server events `input_audio_buffer.speech_started|speech_stopped`',
        '(item_id, audio_start_ms / audio_end_ms), `input_audio_buffer.committed|cleared`,',
        '`conversation.item.input_audio_transcription.delta|completed|failed` (item_id, content_index; `.completed` with',
        '`usage: {"type": "duration", seconds}`), `error`.',
        `The key is checked again before every turn and every ${limits.keyCheckMs / 1000} s: once it is revoked or expired the turn fails, an`,
        '`error` event (`unauthorized`) follows and the session is closed with code 1008.',
        `Bounds: ${limits.maxSessions} sessions at once (the next is closed with code 1013 and a reason), ${limits.maxSessionsPerKey} per key`,
        `(the next upgrade answers 429 \`too_many_sessions\`), each closed ${limits.maxSessionSeconds} s after it opened (an \`error\` event`,
        `\`session_expired\`, then code 1000) or after ${limits.idleMs / 1000} s without events; messages of at most ${limits.maxMessageBytes} bytes`,
        `(close 1009), ${limits.maxBufferSeconds} s of uncommitted audio, turns cut at ${limits.maxTurnSeconds} s. The socket stops being read`,
        `while a session holds ${limits.maxPendingItems} turns awaiting transcription, or ${limits.sessionPauseBytes / MIB} MiB of input not yet`,
        `processed (messages not yet handled, audio buffered, audio of turns awaiting transcription), or all sessions together`,
        `${limits.totalPauseBytes / MIB} MiB; a session past ${limits.sessionMaxBytes / MIB} MiB gets an \`error\` event \`session_overloaded\``,
        'and is closed with code 1008.',
      ].join(' '),
      secured: true,
      parameters: [
        { name: 'intent', in: 'query', required: true, schema: { type: 'string', enum: ['transcription'] } },
        { name: 'model', in: 'query', required: false, description: 'Speech-to-text model id (or set it in a session update).', schema: { type: 'string' } },
      ],
      responses: {
        '101': { description: 'Switched to the WebSocket protocol; the server sends `session.created` (beta: `transcription_session.created`).' },
        '400': jsonError('The `intent` is not `transcription`.', ['invalid_request']),
        '401': V1_COMMON_ERRORS['401']!,
        '403': jsonError("The key's model list holds no speech-to-text model, or not the `model` asked for.", ['model_not_allowed']),
        '404': jsonError('No WebSocket endpoint at this /v1 path.', ['not_found']),
        '429': jsonError('The key is over its requests per minute (`Retry-After` says when to retry), or already holds as many sessions as one key may.', [
          'rate_limited',
          'too_many_sessions',
        ]),
      },
    },
  ];
}
