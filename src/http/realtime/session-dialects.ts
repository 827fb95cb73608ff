/**
 * The two protocols a transcription session speaks (realtime-events.ts), and what differs
 * between them: the shape of a session update, read here into one change of the session's
 * settings; the session object and the names of the events that describe it
 * (`transcription_session.created|updated` in beta, `session.created|updated` in GA); and the
 * events that announce a committed turn's item (`conversation.item.created` in beta,
 * `conversation.item.added` and `.done` in GA). Everything else a session sends is the same in
 * both.
 */
import type { LiveAudioEncoding } from '../../inference/types.js';
import type {
  BetaSessionSettings,
  GaTranscriptionSession,
  IncludeSettings,
  NoiseReductionSettings,
  ServerEvent,
  TranscriptionSettings,
  TurnDetectionSettings,
} from './realtime-events.js';
import type { TurnDetection } from './turn-detector.js';

export type Dialect = 'beta' | 'ga';

/** How the client's audio bytes are read. */
export interface InputFormat {
  encoding: LiveAudioEncoding;
  sampleRate: number;
}

type Eagerness = NonNullable<TurnDetectionSettings['eagerness']>;

export interface TurnDetectionSetting extends TurnDetection {
  type: 'server_vad' | 'semantic_vad';
  eagerness?: Eagerness;
}

export interface SessionSettings {
  model: string | undefined;
  language: string | undefined;
  /** Given to the model as each turn's previous text (OpenAI's `prompt`); empty: none. */
  prompt: string | undefined;
  format: InputFormat;
  /** null: the client commits each turn itself. */
  turnDetection: TurnDetectionSetting | null;
  /** As the client set it (echoed; the audio is not filtered); null: none. */
  noiseReduction: NoiseReductionSettings;
  /** What transcription events carry besides the text (`item.input_audio_transcription.logprobs`); null: nothing. */
  include: IncludeSettings;
}

/** What one update sets; a field it does not name stays as it is. */
export type SessionChange = Partial<SessionSettings>;

/** OpenAI's pcm16 / audio/pcm: 16-bit little-endian mono at 24 kHz, the default of both protocols. */
export const PCM16_24K: InputFormat = Object.freeze({ encoding: 'pcm16', sampleRate: 24_000 });
const ULAW: InputFormat = Object.freeze({ encoding: 'g711-ulaw', sampleRate: 8_000 });
const ALAW: InputFormat = Object.freeze({ encoding: 'g711-alaw', sampleRate: 8_000 });

const BETA_FORMATS = { pcm16: PCM16_24K, g711_ulaw: ULAW, g711_alaw: ALAW } as const;
const GA_FORMATS = { 'audio/pcm': PCM16_24K, 'audio/pcmu': ULAW, 'audio/pcma': ALAW } as const;

export const DEFAULT_TURN_DETECTION: TurnDetectionSetting = Object.freeze({ type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 });

/**
 * semantic_vad asks a model whether the speaker has finished; there is none here, so it is the
 * same Silero VAD and `eagerness` only chooses the silence that ends a turn (our choice: OpenAI
 * documents only its longest waits, 8 / 4 / 2 s).
 */
const SEMANTIC_SILENCE_MS: Record<Eagerness, number> = { low: 1_200, medium: 800, auto: 800, high: 500 };

export const SESSION_EVENTS: Record<Dialect, { created: string; updated: string }> = {
  beta: { created: 'transcription_session.created', updated: 'transcription_session.updated' },
  ga: { created: 'session.created', updated: 'session.updated' },
};

/** Where each dialect's update names the transcription model (the `param` of an error about it). */
export const MODEL_PARAM: Record<Dialect, string> = {
  beta: 'session.input_audio_transcription.model',
  ga: 'session.audio.input.transcription.model',
};

/** A beta `transcription_session.update`'s session as a change of settings. */
export function betaChange(session: BetaSessionSettings): SessionChange {
  const change = transcriptionChange(session.input_audio_transcription);
  if (session.input_audio_format !== undefined) change.format = BETA_FORMATS[session.input_audio_format];
  if (session.turn_detection !== undefined) change.turnDetection = turnDetectionOf(session.turn_detection);
  if (session.input_audio_noise_reduction !== undefined) change.noiseReduction = noiseReductionOf(session.input_audio_noise_reduction);
  if (session.include !== undefined) change.include = session.include && [...session.include];
  return change;
}

/** A GA `session.update`'s transcription session as a change of settings. */
export function gaChange(session: GaTranscriptionSession): SessionChange {
  const input = session.audio?.input;
  const change = transcriptionChange(input?.transcription);
  if (input?.format !== undefined) change.format = GA_FORMATS[input.format.type ?? 'audio/pcm'];
  if (input?.turn_detection !== undefined) change.turnDetection = turnDetectionOf(input.turn_detection);
  if (input?.noise_reduction !== undefined) change.noiseReduction = noiseReductionOf(input.noise_reduction);
  if (session.include !== undefined) change.include = session.include && [...session.include];
  return change;
}

/**
 * The session object of `*.created` / `*.updated`, in the dialect's shape as OpenAI's spec gives
 * it: a setting that is not set is left out, since the spec types each one as a string, an
 * array or an object, never null (the SDKs read a missing field as unset).
 */
export function describeSession(dialect: Dialect, settings: SessionSettings, session: { id: string; expiresAt: number }): Record<string, unknown> {
  const transcription = {
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    ...(settings.language !== undefined ? { language: settings.language } : {}),
    prompt: settings.prompt ?? '',
  };
  const turnDetection = describeTurnDetection(settings.turnDetection);
  const include = settings.include ? { include: settings.include } : {};
  if (dialect === 'beta') {
    return {
      id: session.id,
      object: 'realtime.transcription_session',
      expires_at: session.expiresAt,
      input_audio_format: formatName(BETA_FORMATS, settings.format),
      input_audio_transcription: transcription,
      ...(turnDetection ? { turn_detection: turnDetection } : {}),
      ...(settings.noiseReduction ? { input_audio_noise_reduction: settings.noiseReduction } : {}),
      ...include,
      // The beta spec requires it; no ephemeral keys are issued here, so it holds none.
      client_secret: { value: '', expires_at: session.expiresAt },
    };
  }
  const type = formatName(GA_FORMATS, settings.format);
  return {
    type: 'transcription',
    object: 'realtime.transcription_session',
    id: session.id,
    expires_at: session.expiresAt,
    audio: {
      input: {
        format: type === 'audio/pcm' ? { type, rate: settings.format.sampleRate } : { type },
        transcription,
        ...(settings.noiseReduction ? { noise_reduction: settings.noiseReduction } : {}),
        turn_detection: turnDetection,
      },
    },
    ...include,
  };
}

/** What announces a committed turn's user item, before its transcript. */
export function itemEvents(dialect: Dialect, itemId: string, previousItemId: string | null): ServerEvent[] {
  const item = {
    id: itemId,
    object: 'realtime.item',
    type: 'message',
    status: 'completed',
    role: 'user',
    // No `transcript` yet: the spec types it as a string, and it comes in the .completed event.
    content: [{ type: 'input_audio' }],
  };
  if (dialect === 'beta') return [{ type: 'conversation.item.created', previous_item_id: previousItemId, item }];
  // The item is final once committed; its transcript follows in .completed events.
  return [
    { type: 'conversation.item.added', previous_item_id: previousItemId, item },
    { type: 'conversation.item.done', previous_item_id: previousItemId, item },
  ];
}

function transcriptionChange(transcription: TranscriptionSettings | null | undefined): SessionChange {
  // null turns transcription off in OpenAI's API; transcripts are what this server is for, so it changes nothing.
  if (!transcription) return {};
  const change: SessionChange = {};
  if (transcription.model !== undefined) change.model = transcription.model;
  if (transcription.language !== undefined) change.language = transcription.language;
  if (transcription.prompt !== undefined) change.prompt = transcription.prompt;
  return change;
}

/** Kept as set, for the session to echo: only `type` (near_field, far_field), or null for none. */
function noiseReductionOf(settings: NoiseReductionSettings): NoiseReductionSettings {
  return settings && (settings.type !== undefined ? { type: settings.type } : {});
}

function turnDetectionOf(settings: TurnDetectionSettings | null): TurnDetectionSetting | null {
  if (settings === null) return null;
  const defaults = DEFAULT_TURN_DETECTION;
  if (settings.type === 'semantic_vad') {
    const eagerness = settings.eagerness ?? 'auto';
    return { ...defaults, type: 'semantic_vad', eagerness, silenceDurationMs: SEMANTIC_SILENCE_MS[eagerness] };
  }
  return {
    type: 'server_vad',
    threshold: settings.threshold ?? defaults.threshold,
    prefixPaddingMs: settings.prefix_padding_ms ?? defaults.prefixPaddingMs,
    silenceDurationMs: settings.silence_duration_ms ?? defaults.silenceDurationMs,
  };
}

function describeTurnDetection(setting: TurnDetectionSetting | null): Record<string, unknown> | null {
  if (setting === null) return null;
  if (setting.type === 'semantic_vad') return { type: 'semantic_vad', eagerness: setting.eagerness ?? 'auto' };
  return { type: 'server_vad', threshold: setting.threshold, prefix_padding_ms: setting.prefixPaddingMs, silence_duration_ms: setting.silenceDurationMs };
}

function formatName<Name extends string>(formats: Record<Name, InputFormat>, format: InputFormat): Name {
  return (Object.keys(formats) as Name[]).find((name) => formats[name].encoding === format.encoding)!;
}
