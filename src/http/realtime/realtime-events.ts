/**
 * The client events of a realtime transcription session (OpenAI Realtime API, transcription
 * intent), one TypeBox schema each, and the shape of what the server sends back.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../schema-types.js';

const EventId = Type.Optional(Type.String({ maxLength: 128, description: 'Optional client id of this event, echoed in errors about it.' }));

const TurnDetectionSettings = Type.Object(
  {
    type: StringEnum(['server_vad'] as const, { description: 'Only server-side VAD: speech turns are found by Silero VAD.' }),
    threshold: Type.Optional(Type.Number({ minimum: 0.05, maximum: 0.95, description: 'Speech probability that starts a turn (default 0.5).' })),
    prefix_padding_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000, description: 'Audio kept before the start of speech (default 300).' })),
    silence_duration_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000, description: 'Silence that ends a turn (default 500).' })),
  },
  { additionalProperties: true },
);

export const SessionSettings = Type.Object(
  {
    input_audio_format: Type.Optional(StringEnum(['pcm16'] as const, { description: '16-bit little-endian mono PCM at 24 kHz.' })),
    input_audio_transcription: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Object(
          {
            model: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
            language: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
            prompt: Type.Optional(Type.String({ maxLength: 1_000 })),
          },
          { additionalProperties: true },
        ),
      ]),
    ),
    turn_detection: Type.Optional(Type.Union([Type.Null(), TurnDetectionSettings])),
  },
  // Fields we do not act on (noise reduction, include) are accepted and ignored, as SDKs send them.
  { additionalProperties: true },
);

/** One schema per client event type; the type is looked up first, so a message names the right fields. */
export const CLIENT_EVENTS = {
  'transcription_session.update': Type.Object({ type: Type.String(), event_id: EventId, session: SessionSettings }),
  'input_audio_buffer.append': Type.Object({ type: Type.String(), event_id: EventId, audio: Type.String({ description: 'Base64 of PCM16 audio.' }) }),
  'input_audio_buffer.commit': Type.Object({ type: Type.String(), event_id: EventId }),
  'input_audio_buffer.clear': Type.Object({ type: Type.String(), event_id: EventId }),
};

export type ClientEventType = keyof typeof CLIENT_EVENTS;
export type ClientEvent<T extends ClientEventType = ClientEventType> = Static<(typeof CLIENT_EVENTS)[T]>;
export type SessionSettings = Static<typeof SessionSettings>;

/** What the server sends: a `type` and its fields; every event gets an `event_id` when sent. */
export interface ServerEvent {
  type: string;
  [field: string]: unknown;
}

export interface RealtimeErrorBody {
  type: 'invalid_request_error' | 'server_error';
  code: string;
  message: string;
  param: string | null;
  event_id: string | null;
}
