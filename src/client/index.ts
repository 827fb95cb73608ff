/**
 * Typed client of the local inference server, for Node ≥ 20 and browsers: no dependency and no
 * Node module, only fetch, FormData, Blob, ReadableStream, TextDecoder and AbortSignal.
 *
 * ```ts
 * import { InferenceClient } from 'local-inference-server/client';
 * const client = new InferenceClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.API_KEY });
 * const { labels } = await client.classify({ model: 'minilm-sentiment', query: 'What a lovely day' });
 * ```
 *
 * Inputs are camelCase (`responseFormat`, `targetLanguage`) and mapped to the server's snake_case
 * fields; answers are the server's JSON as sent (`created_at`, `target_languages`).
 *
 * Where the server's shapes differ from the first sketch of this API (the server wins):
 * - `classify` takes `query` (the server's field), not `text`; an array of texts answers a ClassificationBatch;
 * - `translate` takes `targetLanguage` (required by the server) and `sourceLanguage`, not `target`/`source`;
 * - `transcribe` answers OpenAI's shapes from POST /v1/audio/transcriptions: `{text}` for `json`
 *   (the default), `VerboseTranscription` (with `segments`) for `verbose_json`, a string for
 *   `text`/`srt`/`vtt`; SPEC's `Transcript` (POST /v1/transcriptions) with `responseFormat: 'transcript'`;
 * - `SpeechResponse` also has `sampleRate` (X-Sample-Rate), `requestId` and `chunks()`;
 * - `transcribe` also takes `task`, `minSilenceDurationMs`, `speechPadMs`, `vadThreshold`, and Whisper's decoding options
 *   (`prompt`, `hotwords`, `temperature`, the fallback thresholds, `conditionOnPreviousText`, `beamSize`,
 *   `bestOf`, `patience`, `lengthPenalty`, `include`).
 */
import { Http, type HttpOptions } from './http.js';
import { transcriptionForm, uploadBlob } from './multipart.js';
import type { RetryOptions } from './retry.js';
import { InferenceError } from './errors.js';
import { jsonEvents } from './sse.js';
import type {
  Batch,
  BatchLine,
  BatchResult,
  CallOptions,
  CreateBatchInput,
  FileObject,
  Page,
  UploadInput,
  WaitOptions,
  Classification,
  ClassificationBatch,
  ClassifyInput,
  ModelInfo,
  SpeakInput,
  SpeechResponse,
  TranscribeInput,
  Transcript,
  Transcription,
  TranscriptionEvent,
  TranslateInput,
  Translation,
  User,
  UserInput,
  VerboseTranscription,
} from './types.js';

export type * from './types.js';
export { InferenceError, type ErrorCode } from './errors.js';
export type { RetryOptions } from './retry.js';

export interface InferenceClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000`; `''` in a page the server itself serves. */
  baseUrl: string;
  /** An API key (`npm run keys -- create`), sent as a Bearer token to the /v1 routes. */
  apiKey?: string;
  /** Another fetch (a proxy agent, a test double); default the global one. */
  fetch?: typeof fetch;
  /** Opt-in: retry 503 `server_busy` after the server's `Retry-After` (see RetryOptions). */
  retry?: RetryOptions;
}

export interface UsersApi {
  /** Every user, oldest first. */
  list(options?: CallOptions): Promise<User[]>;
  get(id: number, options?: CallOptions): Promise<User>;
  create(input: UserInput, options?: CallOptions): Promise<User>;
  /** Replaces both fields. */
  update(id: number, input: UserInput, options?: CallOptions): Promise<User>;
  delete(id: number, options?: CallOptions): Promise<void>;
}

export interface ModelsApi {
  /** The manifest's models, then the aliases; `installed: true` lists installed ones only. */
  list(options?: CallOptions & { installed?: boolean }): Promise<ModelInfo[]>;
  get(id: string, options?: CallOptions): Promise<ModelInfo>;
  /** Loads a model now (an admin key's right): POST /v1/models/{id}/load; answers its info, `state: 'loaded'`. */
  load(id: string, options?: CallOptions): Promise<ModelInfo>;
  /** Unloads it, ending its worker threads (admin): DELETE /v1/models/{id}/load; 409 while it is busy. */
  unload(id: string, options?: CallOptions): Promise<ModelInfo>;
}

/** OpenAI's Files API: uploads for batches, and their output. */
export interface FilesApi {
  upload(input: UploadInput, options?: CallOptions): Promise<FileObject>;
  list(options?: CallOptions & { purpose?: string; limit?: number; order?: 'asc' | 'desc'; after?: string }): Promise<Page<FileObject>>;
  get(id: string, options?: CallOptions): Promise<FileObject>;
  /** The content as text (a batch's JSONL). */
  text(id: string, options?: CallOptions): Promise<string>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

/** OpenAI's Batch API: durable background runs of many requests. */
export interface BatchesApi {
  create(input: CreateBatchInput, options?: CallOptions): Promise<Batch>;
  /** Uploads `lines` as a JSONL file and creates the batch over them. */
  submit(endpoint: string, lines: readonly BatchLine[], options?: CallOptions & { metadata?: Record<string, string> }): Promise<Batch>;
  get(id: string, options?: CallOptions): Promise<Batch>;
  list(options?: CallOptions & { after?: string; limit?: number }): Promise<Page<Batch>>;
  cancel(id: string, options?: CallOptions): Promise<Batch>;
  /** Looks at the batch until it has ended (completed, failed, expired, cancelled); answers it. */
  wait(id: string, options?: WaitOptions): Promise<Batch>;
  /** Every line of an ended batch's output and error files, in input order of each. */
  results<Body = unknown>(batch: Batch, options?: CallOptions): Promise<BatchResult<Body>[]>;
}

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

export class InferenceClient {
  readonly #http: Http;
  readonly users: UsersApi;
  readonly models: ModelsApi;
  readonly files: FilesApi;
  readonly batches: BatchesApi;

  constructor(options: InferenceClientOptions) {
    if (typeof options?.baseUrl !== 'string') throw new TypeError('"baseUrl" must be a string (use "" for the page\'s own origin)');
    const http = new Http(options satisfies HttpOptions);
    this.#http = http;
    const userPath = (id: number) => `/users/${encodeURIComponent(String(id))}`;
    this.users = {
      list: (o) => http.json({ method: 'GET', path: '/users', authorized: false, signal: o?.signal }),
      get: (id, o) => http.json({ method: 'GET', path: userPath(id), authorized: false, signal: o?.signal }),
      create: (input, o) => http.json({ method: 'POST', path: '/users', body: userBody(input), authorized: false, signal: o?.signal }),
      update: (id, input, o) => http.json({ method: 'PUT', path: userPath(id), body: userBody(input), authorized: false, signal: o?.signal }),
      delete: async (id, o) => {
        const response = await http.send({ method: 'DELETE', path: userPath(id), authorized: false, signal: o?.signal });
        await response.body?.cancel();
      },
    };
    this.models = {
      list: async (o) => {
        const query = o?.installed === undefined ? {} : { installed: String(o.installed) };
        const list = await http.json<{ data: ModelInfo[] }>({ method: 'GET', path: '/v1/models', query, authorized: true, signal: o?.signal });
        return list.data;
      },
      get: (id, o) => http.json({ method: 'GET', path: `/v1/models/${encodeURIComponent(id)}`, authorized: true, signal: o?.signal }),
      load: (id, o) => http.json({ method: 'POST', path: `/v1/models/${encodeURIComponent(id)}/load`, authorized: true, signal: o?.signal }),
      unload: (id, o) => http.json({ method: 'DELETE', path: `/v1/models/${encodeURIComponent(id)}/load`, authorized: true, signal: o?.signal }),
    };
    const filePath = (id: string) => `/v1/files/${encodeURIComponent(id)}`;
    const files: FilesApi = {
      upload: async (input, o) => {
        const form = new FormData();
        form.append('purpose', input.purpose);
        if (input.expiresAfterSeconds !== undefined) {
          form.append('expires_after[anchor]', 'created_at');
          form.append('expires_after[seconds]', String(input.expiresAfterSeconds));
        }
        const content = typeof input.file === 'string' ? new Blob([input.file]) : await uploadBlob(input.file);
        form.append('file', content, input.filename ?? (content instanceof File ? content.name : 'file'));
        return http.json({ method: 'POST', path: '/v1/files', body: form, authorized: true, signal: o?.signal });
      },
      list: (o) =>
        http.json({
          method: 'GET',
          path: '/v1/files',
          query: { purpose: o?.purpose, limit: o?.limit?.toString(), order: o?.order, after: o?.after },
          authorized: true,
          signal: o?.signal,
        }),
      get: (id, o) => http.json({ method: 'GET', path: filePath(id), authorized: true, signal: o?.signal }),
      text: async (id, o) => (await http.send({ method: 'GET', path: `${filePath(id)}/content`, authorized: true, signal: o?.signal })).text(),
      delete: async (id, o) => {
        await http.json({ method: 'DELETE', path: filePath(id), authorized: true, signal: o?.signal });
      },
    };
    this.files = files;
    const batchPath = (id: string) => `/v1/batches/${encodeURIComponent(id)}`;
    const batches: BatchesApi = {
      create: (input, o) =>
        http.json({
          method: 'POST',
          path: '/v1/batches',
          body: {
            input_file_id: input.inputFileId,
            endpoint: input.endpoint,
            completion_window: '24h',
            ...(input.metadata ? { metadata: input.metadata } : {}),
          },
          authorized: true,
          signal: o?.signal,
        }),
      submit: async (endpoint, lines, o) => {
        const file = await files.upload({ file: lines.map((line) => JSON.stringify(line)).join('\n'), filename: 'batch.jsonl', purpose: 'batch' }, o);
        return batches.create({ inputFileId: file.id, endpoint, ...(o?.metadata ? { metadata: o.metadata } : {}) }, o);
      },
      get: (id, o) => http.json({ method: 'GET', path: batchPath(id), authorized: true, signal: o?.signal }),
      list: (o) =>
        http.json({ method: 'GET', path: '/v1/batches', query: { after: o?.after, limit: o?.limit?.toString() }, authorized: true, signal: o?.signal }),
      cancel: (id, o) => http.json({ method: 'POST', path: `${batchPath(id)}/cancel`, authorized: true, signal: o?.signal }),
      wait: async (id, o) => {
        for (;;) {
          const batch = await batches.get(id, o);
          o?.onProgress?.(batch);
          if (ENDED.has(batch.status)) return batch;
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, o?.intervalMs ?? 1000);
            o?.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(o.signal?.reason)), { once: true });
          });
        }
      },
      results: async <Body>(batch: Batch, o?: CallOptions) => {
        const lines: BatchResult<Body>[] = [];
        for (const id of [batch.output_file_id, batch.error_file_id]) {
          if (id === undefined) continue;
          for (const line of (await files.text(id, o)).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as BatchResult<Body>);
        }
        return lines;
      },
    };
    this.batches = batches;
  }

  /**
   * Every label of the model with its confidence, highest first (POST /v1/classifications); an
   * array `query` (up to 64 texts, each holding one of the server's admission slots) answers
   * `{results}`, one Classification per text, in order.
   */
  classify(input: ClassifyInput & { query: string }, options?: CallOptions): Promise<Classification>;
  classify(input: ClassifyInput & { query: string[] }, options?: CallOptions): Promise<ClassificationBatch>;
  classify(input: ClassifyInput, options?: CallOptions): Promise<Classification | ClassificationBatch>;
  classify(input: ClassifyInput, options?: CallOptions): Promise<Classification | ClassificationBatch> {
    const body = { model: input.model, query: input.query, ...(input.labels ? { labels: input.labels } : {}) };
    return this.#http.json({ method: 'POST', path: '/v1/classifications', body, authorized: true, signal: options?.signal });
  }

  /** POST /v1/engines/{model}/translate. */
  translate(input: TranslateInput, options?: CallOptions): Promise<Translation> {
    const body = {
      model: input.model,
      text: input.text,
      target_language: input.targetLanguage,
      ...(input.sourceLanguage === undefined ? {} : { source_language: input.sourceLanguage }),
    };
    const path = `/v1/engines/${encodeURIComponent(input.model)}/translate`;
    return this.#http.json({ method: 'POST', path, body, authorized: true, signal: options?.signal });
  }

  /**
   * Transcribes audio (multipart). The answer's type follows `responseFormat`: `json` (default)
   * `{text}`, `verbose_json` with segments, or the text of `text`, `srt` and `vtt`, from POST
   * /v1/audio/transcriptions; `transcript` is SPEC's JavaScript client form, POST
   * /v1/transcriptions: `{id, object, created, model, transcript}` (the model that ran, for an alias).
   */
  transcribe(input: TranscribeInput & { responseFormat: 'transcript' }, options?: CallOptions): Promise<Transcript>;
  transcribe(input: TranscribeInput & { responseFormat: 'verbose_json' }, options?: CallOptions): Promise<VerboseTranscription>;
  transcribe(input: TranscribeInput & { responseFormat: 'text' | 'srt' | 'vtt' }, options?: CallOptions): Promise<string>;
  transcribe(input: TranscribeInput & { responseFormat?: 'json' }, options?: CallOptions): Promise<Transcription>;
  transcribe(input: TranscribeInput, options?: CallOptions): Promise<Transcript | Transcription | VerboseTranscription | string>;
  async transcribe(input: TranscribeInput, options?: CallOptions): Promise<Transcript | Transcription | VerboseTranscription | string> {
    const format = input.responseFormat ?? 'json';
    const openAi = format !== 'transcript';
    const response = await this.#http.send({
      method: 'POST',
      path: openAi ? '/v1/audio/transcriptions' : '/v1/transcriptions',
      body: await transcriptionForm(input, { openAi }),
      authorized: true,
      signal: options?.signal,
    });
    return format === 'text' || format === 'srt' || format === 'vtt'
      ? response.text()
      : ((await response.json()) as Transcript | Transcription | VerboseTranscription);
  }

  /**
   * The transcript as it is decoded (`stream=true`): `transcript.text.delta` events, then one
   * `transcript.text.done`. Errors before the first event (a bad model, undecodable audio) are
   * thrown by the first step of the iteration; an answer cut off before `done` throws
   * `stream_interrupted`. Stopping the loop early closes the connection, which cancels the work.
   */
  async *transcribeStream(input: Omit<TranscribeInput, 'responseFormat'>, options?: CallOptions): AsyncGenerator<TranscriptionEvent> {
    const response = await this.#http.send({
      method: 'POST',
      path: '/v1/audio/transcriptions',
      body: await transcriptionForm({ ...input, responseFormat: 'json' }, { openAi: true, stream: true }),
      authorized: true,
      signal: options?.signal,
    });
    const requestId = response.headers.get('X-Request-Id') ?? undefined;
    let done = false;
    try {
      for await (const event of jsonEvents<TranscriptionEvent>(response.body!)) {
        done ||= event.type === 'transcript.text.done';
        yield event;
      }
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      throw new InferenceError(200, 'stream_interrupted', `the transcript stream broke off: ${(error as Error).message}`, requestId);
    }
    if (!done) throw new InferenceError(200, 'stream_interrupted', 'the transcript stream ended before transcript.text.done', requestId);
  }

  /**
   * Speaks a text (POST /v1/text-to-speech). Resolves once the first audio has arrived (errors
   * before it are thrown); `body` streams the rest as it is synthesised, or `blob()` /
   * `arrayBuffer()` wait for all of it. An answer cut off mid-way makes reading it fail.
   */
  async speak(input: SpeakInput, options?: CallOptions): Promise<SpeechResponse> {
    const body = {
      model: input.model,
      input: input.input,
      ...(input.voice === undefined ? {} : { voice: input.voice }),
      ...(input.speed === undefined ? {} : { speed: input.speed }),
      ...(input.format === undefined ? {} : { response_format: input.format }),
      ...(input.sampleRate === undefined ? {} : { sample_rate: input.sampleRate }),
    };
    const response = await this.#http.send({ method: 'POST', path: '/v1/text-to-speech', body, authorized: true, signal: options?.signal });
    const contentType = response.headers.get('Content-Type') ?? 'application/octet-stream';
    const rate = Number(response.headers.get('X-Sample-Rate'));
    return {
      contentType,
      sampleRate: Number.isInteger(rate) && rate > 0 ? rate : undefined,
      requestId: response.headers.get('X-Request-Id') ?? undefined,
      body: response.body!,
      chunks: () => chunksOf(response.body!),
      blob: async () => {
        const blob = await response.blob();
        // Some fetch implementations leave the Blob's type empty; players need it.
        return blob.type ? blob : new Blob([blob], { type: contentType });
      },
      arrayBuffer: () => response.arrayBuffer(),
    };
  }
}

/** Reads a stream to its end; leaving the loop early cancels it (and so the request). */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

function userBody(input: UserInput): UserInput {
  return { name: input.name, email: input.email };
}
