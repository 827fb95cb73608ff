/**
 * The fields of OpenAI's transcription form that Whisper's own options do not spell: each is
 * honoured where the server has the feature, or refused by name with what is missing, never
 * dropped silently (docs/api.md, "Speech to text, OpenAI form"):
 * - `languages` (one) is `language`; several are refused (Whisper detects among all its languages);
 * - `keywords` are faster-whisper's `hotwords`;
 * - `chunking_strategy` `auto` or a `server_vad` object transcribes the speech Silero VAD finds
 *   (`vad_filter`), with its padding, silence and threshold;
 * - speaker diarization (`known_speaker_names[]`, `known_speaker_references[]`, `diarized_json`)
 *   is refused: the server has no diarization model.
 */
import { Type } from '@sinclair/typebox';
import { ValidationError } from '../../../errors.js';
import type { RequestValidator } from '../../validation.js';
import type { AudioUpload } from './audio-upload.js';

const VAD_SETTINGS = {
  prefix_padding_ms: 'speech_pad_ms',
  silence_duration_ms: 'min_silence_duration_ms',
  threshold: 'vad_threshold',
} as const;

/** OpenAI's VadConfig, with the ranges of our VAD fields (transcription-request.ts). */
const ServerVad = Type.Object(
  {
    type: Type.Unsafe<'server_vad'>({ type: 'string', enum: ['server_vad'] }),
    prefix_padding_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    silence_duration_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
  },
  { additionalProperties: false },
);

export const openAiFormFields = {
  languages: Type.Optional(
    Type.String({
      description: '`languages[]`: the language of the audio, as `language`. One only: Whisper detects among all its languages, not among a few.',
    }),
  ),
  keywords: Type.Optional(
    Type.String({ description: '`keywords[]`: words to expect, given to Whisper as `hotwords` (joined with ", "); send one of the two.' }),
  ),
  chunking_strategy: Type.Optional(
    Type.String({
      description:
        '`auto`, or a `server_vad` object (`chunking_strategy[type]=server_vad`, `[prefix_padding_ms]`, `[silence_duration_ms]`, `[threshold]`, or its JSON): transcribe the speech Silero VAD finds, as `vad_filter=true` with `speech_pad_ms`, `min_silence_duration_ms` and `vad_threshold`; unset settings keep their defaults.',
    }),
  ),
  known_speaker_names: Type.Optional(Type.String({ description: 'Refused (400): the server has no speaker diarization.' })),
  known_speaker_references: Type.Optional(Type.String({ description: 'Refused (400): the server has no speaker diarization.' })),
};

/** The same fields as the multipart form spells them (the SDKs send arrays as repeated `name[]`), for the document. */
export const openAiFormParts = {
  'languages[]': Type.Optional(Type.Array(Type.String(), { maxItems: 1, description: openAiFormFields.languages.description })),
  'keywords[]': Type.Optional(Type.Array(Type.String(), { description: openAiFormFields.keywords.description })),
  chunking_strategy: openAiFormFields.chunking_strategy,
  'known_speaker_names[]': Type.Optional(Type.Array(Type.String(), { description: openAiFormFields.known_speaker_names.description })),
  'known_speaker_references[]': Type.Optional(Type.Array(Type.String(), { description: openAiFormFields.known_speaker_references.description })),
};

const NO_DIARIZATION = 'speaker diarization is not supported: this server has no diarization model';

/** A form field refused whatever its value, by the name of its part (`known_speaker_references`). */
export function refusedFormField(name: string): ValidationError | undefined {
  if (name === 'known_speaker_names' || name === 'known_speaker_references') {
    return new ValidationError(`"${name}[]": ${NO_DIARIZATION}; leave it out`, name);
  }
  return undefined;
}

/** Refuses the features the server does not have, before the fields are validated (so the reason is said, not "must be one of"). */
export function refuseUnsupported(fields: AudioUpload['fields']): void {
  for (const name of ['known_speaker_names', 'known_speaker_references'] as const) {
    if (fields[name] !== undefined) throw refusedFormField(name)!;
  }
  if (fields.response_format === 'diarized_json') {
    throw new ValidationError(`"response_format" diarized_json: ${NO_DIARIZATION}; use json, text, srt, verbose_json or vtt`, 'response_format');
  }
}

interface OpenAiFields {
  language?: string;
  hotwords?: string;
  vad_filter?: 'true' | 'false';
  speech_pad_ms?: number;
  min_silence_duration_ms?: number;
  vad_threshold?: number;
  languages?: string;
  keywords?: string;
  chunking_strategy?: string;
}

/** Compiles the server_vad schema once; the returned function folds OpenAI's fields into Whisper's. */
export function openAiFieldsReader(validator: RequestValidator) {
  const parseChunking = validator.compile(Type.Object({ chunking_strategy: ServerVad }));
  return <F extends OpenAiFields>(fields: F): F => {
    const { languages, keywords, chunking_strategy, ...rest } = fields;
    const folded: OpenAiFields = { ...rest };
    if (languages !== undefined) folded.language = oneLanguage(languages, fields.language);
    if (keywords !== undefined) {
      if (fields.hotwords !== undefined) throw new ValidationError('"keywords[]" and "hotwords" are the same option: send one of them', 'keywords');
      folded.hotwords = keywords.split(',').join(', ');
    }
    if (chunking_strategy !== undefined && chunking_strategy !== 'null') Object.assign(folded, vadFields(chunking_strategy, parseChunking));
    return folded as F;
  };
}

function oneLanguage(languages: string, language: string | undefined): string {
  const codes = [...new Set(languages.split(',').map((code) => code.trim()))];
  if (codes.length > 1) {
    throw new ValidationError(
      `"languages[]" holds ${codes.length} languages; only one is supported (Whisper cannot narrow its detection to a few): send one, or none to detect it`,
      'languages',
    );
  }
  if (language !== undefined && language !== codes[0]) {
    throw new ValidationError(`"languages[]" (${codes[0]}) and "language" (${language}) disagree: send one of them`, 'languages');
  }
  return codes[0]!;
}

function vadFields(text: string, parse: (input: unknown) => { chunking_strategy: { type: 'server_vad' } & Record<string, number | string> }) {
  if (text === 'auto') return { vad_filter: 'true' as const };
  const object = jsonObject(text);
  if (!object) {
    throw new ValidationError(
      '"chunking_strategy" must be "auto" or a server_vad object ({"type": "server_vad", "prefix_padding_ms", "silence_duration_ms", "threshold"})',
      'chunking_strategy',
    );
  }
  // Form parts carry numbers as text (`chunking_strategy[threshold]=0.6`).
  const values = Object.fromEntries(Object.entries(object).map(([key, value]) => [key, key !== 'type' && isNumeric(value) ? Number(value) : value]));
  const { chunking_strategy } = parse({ chunking_strategy: values });
  const settings = Object.entries(VAD_SETTINGS).filter(([from]) => chunking_strategy[from] !== undefined);
  return { vad_filter: 'true' as const, ...Object.fromEntries(settings.map(([from, to]) => [to, chunking_strategy[from]])) };
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isNumeric = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
