/**
 * The upload of the speech-to-text routes as multipart/form-data (OpenAI's form, which every
 * input type fits and browsers send without a CORS-unsafe body type). A stream (or async
 * iterable) is read into a Blob first: fetch can stream a request body only with `duplex: "half"`, which Chromium allows
 * over HTTP/2 alone, and a Blob can be sent again when a busy server asks for a retry.
 */
import type { AudioInput, TranscribeInput } from './types.js';

/** camelCase input → the form's field names. */
const FORM_FIELDS = {
  model: 'model',
  language: 'language',
  task: 'task',
  responseFormat: 'response_format',
  vadFilter: 'vad_filter',
  minSilenceDurationMs: 'min_silence_duration_ms',
  speechPadMs: 'speech_pad_ms',
  vadThreshold: 'vad_threshold',
  prompt: 'prompt',
  temperature: 'temperature',
} as const satisfies Partial<Record<keyof TranscribeInput, string>>;

/** Every form field the client may send (the test compares them with /openapi.json). */
export const TRANSCRIPTION_FORM_FIELDS: readonly string[] = ['file', ...Object.values(FORM_FIELDS), 'timestamp_granularities[]', 'stream'];

export async function transcriptionForm(input: TranscribeInput, extra: Record<string, string> = {}): Promise<FormData> {
  const form = new FormData();
  const file = await toBlob(input.file);
  form.append('file', file, input.filename ?? (isNamed(input.file) ? input.file.name : 'audio'));
  for (const [key, field] of Object.entries(FORM_FIELDS)) {
    const value = input[key as keyof typeof FORM_FIELDS];
    if (value !== undefined) form.append(field, String(value));
  }
  for (const granularity of input.timestampGranularities ?? []) form.append('timestamp_granularities[]', granularity);
  for (const [field, value] of Object.entries(extra)) form.append(field, value);
  return form;
}

/** A Blob of the audio; bytes are copied, a stream is read to its end. */
export async function toBlob(input: AudioInput): Promise<Blob> {
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
