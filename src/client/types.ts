/**
 * The shapes the server sends and takes, as the client declares them. Response objects keep the
 * server's field names (`created_at`, `target_languages`); inputs are camelCase and the client
 * maps them to the wire (`targetLanguage` → `target_language`). test/client/openapi-types.test.ts
 * keeps these in line with /openapi.json.
 */

/** A user record (the users API, `/users`). */
export interface User {
  id: number;
  name: string;
  email: string;
  /** ISO 8601, UTC. */
  created_at: string;
  /** ISO 8601, UTC; equals `created_at` until the first update. */
  updated_at: string;
}

export interface UserInput {
  name: string;
  email: string;
}

export type Task = 'text-classification' | 'translation' | 'speech-to-text' | 'text-to-speech' | 'voice-activity-detection' | 'embeddings';

/** One entry of `GET /v1/models`: OpenAI's model object plus the server's own fields. */
export interface ModelInfo {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  task: Task;
  engine: string;
  description?: string;
  license?: string;
  default?: boolean;
  /** False until its files are installed (requests then answer 503 `model_not_installed`). */
  installed: boolean;
  loaded?: boolean;
  /** The command that installs it. */
  install?: string;
  /** For an alias (`whisper-1`, `tts-1`): the installed model it stands for now. */
  alias_of?: string | null;
  /** Where it is in its lifecycle (docs/operations.md, "Model lifecycle"). */
  state?: 'unloaded' | 'loading' | 'loaded';
  /** Memory it takes: the RSS growth measured during its load and first call (its files' size while the first load runs); null before. */
  memory_bytes?: number | null;
  /** Unix time of its last use since the server started; null if none. */
  last_used_at?: number | null;
  /** Bytes it takes once installed, known before download (pinned file sizes or a stated figure); null when the catalogue does not know. */
  size_bytes?: number | null;
  /** Present when `size_bytes` is an estimate, not the sum of pinned file sizes. */
  size_estimated?: true;
  /** Language codes it serves (`en`, `pt-BR`); null when not stated. */
  languages?: string[] | null;
  /** Whether the model's real weights were run by the project's tests (the test models and their hub twins). */
  real_weights_run_here?: boolean;
  /** Text to speech: the `voice` names it answers to. */
  voices?: string[];
  /** Engines add what they know, e.g. `labels`, `accepts_labels`, `source_languages`, `target_languages`, `formats`, `speed`. */
  [extra: string]: unknown;
}

export interface ClassifyInput {
  model: string;
  /** The text to classify (the server's field name is `query`), or up to 64 texts: the answer is then a ClassificationBatch. */
  query: string | string[];
  /** Candidate labels, for zero-shot and embedding models (`accepts_labels` in the model's info). */
  labels?: string[];
}

export interface Label {
  label: string;
  /** 0–1. */
  confidence: number;
}

export interface Classification {
  /** Every label, highest confidence first. */
  labels: Label[];
}

/** The answer to an array `query`: one Classification per text, in order. */
export interface ClassificationBatch {
  results: Classification[];
}

export interface TranslateInput {
  model: string;
  text: string;
  /** Short code such as `es`; `es-MX` and `spa` map to the model's code. */
  targetLanguage: string;
  /** Optional: the model's own source language, or detection, is used without it. */
  sourceLanguage?: string;
}

export interface Translation {
  translation: string;
}

/**
 * What `transcribe` accepts as the audio: a File or Blob (its name and type are used), bytes
 * (ArrayBuffer, Uint8Array, Node's Buffer), a ReadableStream, or any async iterable of bytes
 * (Node's `fs.createReadStream(path)` as it is).
 */
export type AudioInput = Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * The answer's shape: OpenAI's `response_format` values on POST /v1/audio/transcriptions, or
 * `transcript`, SPEC's JavaScript client form (POST /v1/transcriptions).
 */
export type TranscriptFormat = 'json' | 'verbose_json' | 'text' | 'srt' | 'vtt' | 'transcript';

export interface TranscribeInput {
  /** Speech-to-text model id or alias (`whisper-1`). */
  model: string;
  /** The audio: MP3, WAV, FLAC, Ogg (Opus, Vorbis), WebM, MP4/M4A or AAC; the server reads the format from the bytes. */
  file: AudioInput;
  /** File name sent with the upload (default: the File's name, else `audio`). */
  filename?: string;
  /** Spoken language as a short code such as `en`; detected when omitted (multilingual models). */
  language?: string;
  /** `translate`: an English transcript of speech in another language (multilingual Whisper models). */
  task?: 'transcribe' | 'translate';
  /** Answer format (default `json`: `{text}`). */
  responseFormat?: TranscriptFormat;
  /** Sent as `timestamp_granularities[]` (not with `transcript`): with `verbose_json`, `word` adds `words` (`segments` are always there). */
  timestampGranularities?: ('segment' | 'word')[];
  /** Transcribe only the speech Silero VAD finds (default: on for audio over 30 s when the VAD model is installed). */
  vadFilter?: boolean;
  /** VAD: a pause shorter than this does not end a stretch of speech (ms, 0–60000). */
  minSilenceDurationMs?: number;
  /** VAD: each stretch of speech is widened by this much on both sides (ms, 0–10000). */
  speechPadMs?: number;
  /** VAD: a frame whose speech probability is at least this is speech (0–1, exclusive). */
  vadThreshold?: number;
  /** Text that came before the audio (names, spellings): Whisper's previous text for the first window (its last 223 tokens). */
  prompt?: string;
  /** faster-whisper's hotwords: words to expect, given to every window as previous text. */
  hotwords?: string;
  /** 0–1: one value decodes at it (0: greedy, no fallback); a list (≤ 6) is the fallback schedule. Default 0, 0.2, …, 1. */
  temperature?: number | readonly number[];
  /** Fallback when a window's gzip compression ratio is above this (1–10, default 2.4). */
  compressionRatioThreshold?: number;
  /** Fallback when a window's average token log probability is below this (−20–0, default −1). */
  logProbThreshold?: number;
  /** A window is silence when `<|nospeech|>` is above this and its text below `logProbThreshold` (0–1, default 0.6). */
  noSpeechThreshold?: number;
  /** Each window prompted with the text before it (default true). */
  conditionOnPreviousText?: boolean;
  /** Beam search with this many beams at temperature 0 (1–10; default 1, greedy, and 2 on VAD windows unless `bestOf` is set); `beamSize` × `bestOf` ≤ 25. */
  beamSize?: number;
  /** Samples drawn at a temperature above 0, the likeliest kept (1–10, default 1). */
  bestOf?: number;
  /** Beam search stops once `beamSize` × `patience` beams have finished (0.5–5, default 1). */
  patience?: number;
  /** Rank by ((5 + length) / 6) ^ lengthPenalty instead of the length (0–1; default: the length, as openai/whisper). */
  lengthPenalty?: number;
  /** Sent as `include[]` (not with `transcript`): `logprobs` adds the tokens' log probabilities to a `json` answer or to each streamed event. */
  include?: 'logprobs'[];
}

/** `responseFormat: 'transcript'`: SPEC's answer of POST /v1/transcriptions. */
export interface Transcript {
  /** `trsc_` and 32 hex digits. */
  id: string;
  object: 'transcript';
  /** Unix time in seconds. */
  created: number;
  /** The model that ran (an alias such as `whisper-1` names the model it stands for). */
  model: string;
  transcript: string;
}

/** `response_format: json` (the default). */
export interface Transcription {
  text: string;
  /** With `include: ['logprobs']`: each text token of the transcript. */
  logprobs?: TokenLogprob[];
  /** Seconds of audio (rounded up), as OpenAI's whisper-1 reports them. */
  usage: DurationUsage;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  /** The token's UTF-8 bytes. */
  bytes: number[];
}

export interface DurationUsage {
  type: 'duration';
  seconds: number;
}

export interface TranscriptSegment {
  id: number;
  /** Mel frame (10 ms) where the segment's 30-s decoding window starts. */
  seek: number;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  text: string;
  /** Token ids, timestamp tokens included. */
  tokens: number[];
  /** Decoding statistics of the segment's window, as OpenAI reports them. */
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
}

/** A word of `timestampGranularities: ['word']`. */
export interface TranscriptWord {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
}

/** `response_format: verbose_json`. */
export interface VerboseTranscription {
  task: string;
  /** The language's name, as OpenAI gives it (`english`). */
  language: string;
  /** Seconds of audio. */
  duration: number;
  text: string;
  /** Always (with the `word` granularity alone too, as speaches answers). */
  segments: TranscriptSegment[];
  /** With the `word` granularity. */
  words?: TranscriptWord[];
  usage: DurationUsage;
}

/** The events of a streamed transcription (`stream=true`): deltas as the audio is decoded, then the whole text. */
export type TranscriptionEvent = TranscriptTextDelta | TranscriptTextDone;

export interface TranscriptTextDelta {
  type: 'transcript.text.delta';
  /** The next piece of the text; the deltas joined are the final text. */
  delta: string;
  /** With `include: ['logprobs']`: the delta's text tokens. */
  logprobs?: TokenLogprob[];
}

export interface TranscriptTextDone {
  type: 'transcript.text.done';
  text: string;
  /** With `include: ['logprobs']`: every text token of the transcript. */
  logprobs?: TokenLogprob[];
}

export type SpeechFormat = 'mp3' | 'wav' | 'pcm' | 'opus' | 'flac' | 'aac';

export interface SpeakInput {
  /** Text-to-speech model id or alias (`tts-1`). */
  model: string;
  /** The text to speak (at most 5,000 characters). */
  input: string;
  /** Voice or speaker name, where the model has several. */
  voice?: string;
  /** 0.25–4 (default 1). */
  speed?: number;
  /** `mp3` (default), `opus` (Ogg), `aac` (ADTS), `flac`, `pcm` (16-bit LE mono, no header): streamed; `wav`: sent whole. Sent as `response_format`. */
  format?: SpeechFormat;
  /** Output sample rate in Hz (an MPEG rate: 8000 … 48000); default the voice's own (24000 for `pcm`). */
  sampleRate?: number;
}

export interface SpeechResponse {
  /** `audio/mpeg`, `audio/wav` or `audio/pcm`. */
  readonly contentType: string;
  /**
   * From `X-Sample-Rate` (needed to play headerless `pcm`); undefined when the header cannot be
   * read (a page on another origin reads only the headers the server's CORS exposes).
   */
  readonly sampleRate: number | undefined;
  readonly requestId: string | undefined;
  /** The audio as it is synthesised, sentence by sentence. Read it, or call `blob()` / `arrayBuffer()`, once. */
  readonly body: ReadableStream<Uint8Array>;
  /**
   * The same stream as an async iterable of chunks: `for await` works in every browser (Safari's
   * ReadableStream is not iterable) and Node's `pipeline(speech.chunks(), createWriteStream(…))`
   * takes it without converting web stream types.
   */
  chunks(): AsyncIterable<Uint8Array>;
  blob(): Promise<Blob>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Per-call options of every method. */
export interface CallOptions {
  /** Aborts the request, a retry's wait, and the reading of a streamed answer. */
  signal?: AbortSignal;
}

/** A stored file (OpenAI's file object, plus its SHA-256). */
export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at?: number;
  filename: string;
  purpose: string;
  status: 'processed';
  sha256: string;
}

export interface UploadInput {
  /** The content: a Blob, bytes, a stream, or text (a JSONL file). */
  file: AudioInput | string;
  filename?: string;
  /** `batch` for a batch's input, `user_data` for anything else (audio a batch transcribes). */
  purpose: 'batch' | 'user_data';
  /** Seconds after upload the file expires (3600–2592000). */
  expiresAfterSeconds?: number;
}

/** A page of a list (files, batches). */
export interface Page<T> {
  data: T[];
  first_id?: string;
  last_id?: string;
  has_more: boolean;
}

export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

/** OpenAI's batch object. */
export interface Batch {
  id: string;
  object: 'batch';
  endpoint: string;
  errors?: { object: 'list'; data: { code: string; message: string; line?: number | null }[] };
  input_file_id: string;
  completion_window: '24h';
  status: BatchStatus;
  output_file_id?: string;
  error_file_id?: string;
  created_at: number;
  in_progress_at?: number;
  expires_at?: number;
  finalizing_at?: number;
  completed_at?: number;
  failed_at?: number;
  expired_at?: number;
  cancelling_at?: number;
  cancelled_at?: number;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
}

/** One request of a batch, as a line of its input file. */
export interface BatchLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

/** One line of a batch's output or error file. */
export interface BatchResult<Body = unknown> {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: Body } | null;
  error: { code: string; message: string } | null;
}

export interface CreateBatchInput {
  inputFileId: string;
  /** `/v1/embeddings`, `/v1/classifications`, `/v1/engines/{model}/translate` or `/v1/audio/transcriptions`. */
  endpoint: string;
  metadata?: Record<string, string>;
}

export interface WaitOptions extends CallOptions {
  /** Between two looks at the batch; default 1000 ms. */
  intervalMs?: number;
  /** Called with the batch at each look (its `request_counts` is the progress). */
  onProgress?: (batch: Batch) => void;
}
