/**
 * The upload of the speech-to-text routes as multipart/form-data: OpenAI's form, which carries
 * the file name and every field in the body for any input type (the raw-body form would move
 * them into the query string). A stream (or async iterable) is read into a Blob first: fetch can
 * stream a request body only with `duplex: "half"`, which Chromium allows over HTTP/2 alone, and
 * a Blob can be sent again when a busy server asks for a retry.
 */
import type { AudioInput, TranscribeInput } from './types.js';

/** camelCase input → the form's field names, as both speech-to-text routes take them. */
const FORM_FIELDS = {
  model: 'model',
  language: 'language',
  task: 'task',
  vadFilter: 'vad_filter',
  minSilenceDurationMs: 'min_silence_duration_ms',
  speechPadMs: 'speech_pad_ms',
  vadThreshold: 'vad_threshold',
  prompt: 'prompt',
  hotwords: 'hotwords',
  temperature: 'temperature',
  compressionRatioThreshold: 'compression_ratio_threshold',
  logProbThreshold: 'log_prob_threshold',
  noSpeechThreshold: 'no_speech_threshold',
  conditionOnPreviousText: 'condition_on_previous_text',
  beamSize: 'beam_size',
  bestOf: 'best_of',
  patience: 'patience',
  lengthPenalty: 'length_penalty',
} as const satisfies Partial<Record<keyof TranscribeInput, string>>;
/** Only OpenAI's route (POST /v1/audio/transcriptions) takes these. */
const OPENAI_FORM_FIELDS = {
  responseFormat: 'response_format',
} as const satisfies Partial<Record<keyof TranscribeInput, string>>;

/** The form of POST /v1/audio/transcriptions (`openAi`) or of SPEC's POST /v1/transcriptions. */
export async function transcriptionForm(input: TranscribeInput, options: { openAi: boolean; stream?: boolean }): Promise<FormData> {
  const form = new FormData();
  const file = await toBlob(input.file);
  form.append('file', file, input.filename ?? (isNamed(input.file) ? input.file.name : 'audio'));
  for (const [key, field] of Object.entries({ ...FORM_FIELDS, ...(options.openAi ? OPENAI_FORM_FIELDS : {}) })) {
    const value = input[key as keyof TranscribeInput];
    if (value !== undefined) form.append(field, String(value));
  }
  if (options.openAi) for (const granularity of input.timestampGranularities ?? []) form.append('timestamp_granularities[]', granularity);
  if (options.openAi) for (const item of input.include ?? []) form.append('include[]', item);
  if (options.stream) form.append('stream', 'true');
  return form;
}

/** A Blob of the audio; bytes are copied, a stream is read to its end. */
export const uploadBlob = (input: AudioInput): Promise<Blob> => toBlob(input);

async function toBlob(input: AudioInput): Promise<Blob> {
  if (input instanceof Blob) return input;
  if (input instanceof ArrayBuffer) return new Blob([input]);
  if (ArrayBuffer.isView(input)) return new Blob([input.buffer instanceof ArrayBuffer ? (input as ArrayBufferView<ArrayBuffer>) : copyOf(input)]);
  if (typeof (input as ReadableStream | undefined)?.getReader === 'function') return new Response(input as ReadableStream<Uint8Array>).blob();
  if (typeof (input as AsyncIterable<Uint8Array> | undefined)?.[Symbol.asyncIterator] === 'function') {
    const parts: BlobPart[] = [];
    for await (const chunk of input as AsyncIterable<unknown>) {
      if (!ArrayBuffer.isView(chunk)) throw new TypeError('"file" must yield bytes (Uint8Array or Buffer chunks)');
      parts.push(copyOf(chunk));
    }
    return new Blob(parts);
  }
  throw new TypeError('"file" must be a Blob, File, ArrayBuffer, typed array (Buffer, Uint8Array), ReadableStream or async iterable of bytes');
}

/** A view of a SharedArrayBuffer cannot be a Blob part; a plain copy always can. */
function copyOf(view: ArrayBufferView): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(view.byteLength);
  copy.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  return copy;
}

function isNamed(file: AudioInput): file is Blob & { name: string } {
  const name = (file as { name?: unknown }).name;
  return file instanceof Blob && typeof name === 'string' && name !== '';
}
