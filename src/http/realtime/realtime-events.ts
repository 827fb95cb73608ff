/**
 * The client events of a realtime transcription session (OpenAI Realtime API, transcription
 * intent), one TypeBox schema each, and the shape of what the server sends back.
 *
 * Two shapes of the session's settings are understood: the beta protocol's
 * `transcription_session.update` (flat: `input_audio_format`, `input_audio_transcription`,
 * `turn_detection`) and the GA protocol's `session.update` with `session.type: "transcription"`
 * (nested under `audio.input`: `format`, `transcription`, `turn_detection`). The audio events
 * are the same in both.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../schema-types.js';

const EventId = Type.Optional(Type.String({ maxLength: 128, description: 'Optional client id of this event, echoed in errors about it.' }));

/** Both protocols: `semantic_vad` is served by the same Silero VAD, its `eagerness` choosing the silence that ends a turn. */
const TurnDetectionSettings = Type.Object(
  {
    type: StringEnum(['server_vad', 'semantic_vad'] as const, { description: 'Speech turns are found by Silero VAD either way.' }),
    threshold: Type.Optional(Type.Number({ minimum: 0.05, maximum: 0.95, description: 'Speech probability that starts a turn (default 0.5).' })),
    prefix_padding_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000, description: 'Audio kept before the start of speech (default 300).' })),
    silence_duration_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000, description: 'Silence that ends a turn (default 500).' })),
    eagerness: Type.Optional(
      StringEnum(['low', 'medium', 'high', 'auto'] as const, {
        description: 'semantic_vad: the silence that ends a turn, 1.2 s / 0.8 s / 0.5 s (auto = medium).',
      }),
    ),
  },
  // create_response, interrupt_response, idle_timeout_ms: there is no response to create or interrupt.
  { additionalProperties: true },
);

const TranscriptionSettings = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    language: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    prompt: Type.Optional(
      Type.String({
        maxLength: 4_000,
        description:
          "Text that came before the speech (names, spellings): each turn's previous text for Whisper (its last 223 tokens), as the HTTP routes' `prompt`.",
      }),
    ),
  },
  // keywords, languages, delay: other models' options.
  { additionalProperties: true },
);

/** OpenAI's noise reduction: echoed as set, not applied (there is no such filter here; docs/api.md). */
const NoiseReduction = Type.Union([
  Type.Null(),
  Type.Object({
    type: Type.Optional(StringEnum(['near_field', 'far_field'] as const, { description: 'Echoed in the session; the audio is used as sent.' })),
  }),
]);

export const LOGPROBS_INCLUDE = 'item.input_audio_transcription.logprobs';

/** What transcription events carry besides the text: only the tokens' log probabilities, as in OpenAI's API. */
const Include = Type.Union([
  Type.Null(),
  Type.Array(StringEnum([LOGPROBS_INCLUDE] as const, { description: "Each turn's `.delta` and `.completed` carry its text tokens' `logprobs`." }), {
    maxItems: 1,
  }),
]);

/** The beta protocol's session (`transcription_session.update`). */
export const BetaSessionSettings = Type.Object(
  {
    input_audio_format: Type.Optional(
      StringEnum(['pcm16', 'g711_ulaw', 'g711_alaw'] as const, { description: '16-bit little-endian mono PCM at 24 kHz, or G.711 at 8 kHz.' }),
    ),
    input_audio_transcription: Type.Optional(Type.Union([Type.Null(), TranscriptionSettings])),
    turn_detection: Type.Optional(Type.Union([Type.Null(), TurnDetectionSettings])),
    input_audio_noise_reduction: Type.Optional(NoiseReduction),
    include: Type.Optional(Include),
  },
  // Fields of conversation sessions (modalities, instructions, …) are accepted and ignored, as SDKs send them.
  { additionalProperties: true },
);

const AudioFormat = Type.Object(
  {
    type: Type.Optional(StringEnum(['audio/pcm', 'audio/pcmu', 'audio/pcma'] as const, { description: 'PCM16 at 24 kHz (the default), or G.711 at 8 kHz.' })),
    rate: Type.Optional(Type.Literal(24_000, { description: 'audio/pcm only, and always 24000.' })),
  },
  { additionalProperties: true },
);

/** The GA protocol's transcription session (`session.update`). */
export const GaTranscriptionSession = Type.Object(
  {
    type: StringEnum(['transcription'] as const, { description: 'Only transcription sessions are served.' }),
    audio: Type.Optional(
      Type.Object(
        {
          input: Type.Optional(
            Type.Object(
              {
                format: Type.Optional(AudioFormat),
                transcription: Type.Optional(Type.Union([Type.Null(), TranscriptionSettings])),
                turn_detection: Type.Optional(Type.Union([Type.Null(), TurnDetectionSettings])),
                noise_reduction: Type.Optional(NoiseReduction),
              },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    include: Type.Optional(Include),
  },
  { additionalProperties: true },
);

/** One schema per client event type; the type is looked up first, so a message names the right fields. */
export const CLIENT_EVENTS = {
  'session.update': Type.Object({ type: Type.String(), event_id: EventId, session: GaTranscriptionSession }),
  'transcription_session.update': Type.Object({ type: Type.String(), event_id: EventId, session: BetaSessionSettings }),
  'input_audio_buffer.append': Type.Object({
    type: Type.String(),
    event_id: EventId,
    audio: Type.String({ description: 'Audio in the format the session was given, as strict base64 (base64-audio.ts checks it).' }),
  }),
  'input_audio_buffer.commit': Type.Object({ type: Type.String(), event_id: EventId }),
  'input_audio_buffer.clear': Type.Object({ type: Type.String(), event_id: EventId }),
};

export type ClientEventType = keyof typeof CLIENT_EVENTS;
export type ClientEvent<T extends ClientEventType = ClientEventType> = Static<(typeof CLIENT_EVENTS)[T]>;
export type BetaSessionSettings = Static<typeof BetaSessionSettings>;
export type GaTranscriptionSession = Static<typeof GaTranscriptionSession>;
export type TurnDetectionSettings = Static<typeof TurnDetectionSettings>;
export type TranscriptionSettings = Static<typeof TranscriptionSettings>;
export type NoiseReductionSettings = Static<typeof NoiseReduction>;
export type IncludeSettings = Static<typeof Include>;

/** What the server sends: a `type` and its fields; every event gets an `event_id` when sent. */
export interface ServerEvent {
  type: string;
  [field: string]: unknown;
}

/** The `error` of an `error` event: the same in both protocols. */
export interface RealtimeErrorBody {
  type: 'invalid_request_error' | 'server_error';
  code: string;
  message: string;
  param: string | null;
  event_id: string | null;
}
