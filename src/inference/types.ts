/**
 * The narrow interfaces the HTTP layer sees. Engine libraries (transformers.js, onnxruntime,
 * Apertium) never leak past these types.
 */
import { OUTPUT_SAMPLE_RATES } from '../audio/codec-sample-rates.js';
import type { PcmAudio } from '../audio/pcm-audio.js';

/** The tasks and the model type of each come from the task table (tasks.ts). */
export type { EngineModelForTask, ModelForTask, Task } from './tasks.js';

export interface Disposable {
  dispose(): Promise<void>;
}

/**
 * Every task call takes the request's signal: it aborts when the client goes away, and the
 * model then drops the work (queued work at once, running work at its next step) instead of
 * spending CPU on an answer nobody reads. An aborted call rejects with the signal's reason.
 */
interface Cancellable {
  signal?: AbortSignal;
}

export interface Label {
  label: string;
  confidence: number;
}

export interface ClassifyOptions extends Cancellable {
  /** Candidate labels, for zero-shot and embedding models that accept them per request. */
  labels?: readonly string[];
}

export interface Classifier extends Disposable {
  /** Tokens of one text the model reads (longer texts are truncated), when known. */
  readonly maxInputTokens?: number;
  /** Every label of the model, sorted by confidence, descending. */
  classify(text: string, options?: ClassifyOptions): Promise<Label[]>;
}

export interface TranslateOptions extends Cancellable {
  /**
   * A language code as the client sent it (`es`, `es-MX`, `spa`, `zh-TW`): the translator maps
   * it to one of its own, or rejects it with a ValidationError listing those it supports.
   */
  targetLanguage: string;
  sourceLanguage?: string;
}

export interface Translator extends Disposable {
  /** Short codes (`es`, `fr`, …) this model can translate into. */
  readonly targetLanguages: readonly string[];
  /** Short codes it can translate from; absent means "any, detected when not given". */
  readonly sourceLanguages?: readonly string[];
  translate(text: string, options: TranslateOptions): Promise<string>;
}

export interface TranscribeOptions extends Cancellable {
  language?: string;
  task?: 'transcribe' | 'translate';
  /** Ask for timestamped segments (verbose_json). */
  segments?: boolean;
  /** Ask for word timestamps (with `segments`: each segment's `words`). */
  words?: boolean;
  /** Transcribe only the speech Silero VAD finds; absent: on for audio over 30 s when the VAD model is installed. */
  vadFilter?: boolean;
  vad?: VadOptions;
  /** How Whisper decodes; absent: greedy with openai/whisper's temperature fallback. */
  decoding?: DecodingOptions;
  /**
   * Called with each group of segments as soon as it is final, in order, before the transcript
   * resolves (text as decoded, with its leading space). Audio of one window may report nothing
   * before the end.
   */
  onSegments?: (segments: TranscriptSegment[]) => void;
}

/**
 * openai/whisper's and faster-whisper's decoding options (docs/api.md, "Decoding options"). Any of
 * them sends the audio through our own window decoder (long-form-decoder.ts).
 */
export interface DecodingOptions {
  /** Text that came before the audio (OpenAI's `prompt`, openai/whisper's `initial_prompt`): the first window's previous text. */
  prompt?: string;
  /** faster-whisper's `hotwords`: text put before the previous text of every window. */
  hotwords?: string;
  /** Tried in turn until a window's decode passes the thresholds; one: decode at it, no fallback. */
  temperatures?: readonly number[];
  compressionRatioThreshold?: number;
  logProbThreshold?: number;
  noSpeechThreshold?: number;
  /** Prompt each window with the text decoded before it (default true). */
  conditionOnPreviousText?: boolean;
  /** Report each text token's log probability (Transcript.logprobs). */
  logprobs?: boolean;
  /** Beams of a beam search at temperature 0 (1: greedy, the default; VAD windows take decoding-options.ts's DEFAULT_SEARCH when unset). */
  beamSize?: number;
  /** Samples drawn at a temperature above 0, the likeliest kept (default 1). */
  bestOf?: number;
  /** Finished beams a beam search waits for, as a multiple of beamSize (default 1). */
  patience?: number;
  /** Google NMT's length penalty alpha (0 to 1) in ranking beams and samples; default: divide by the length. */
  lengthPenalty?: number;
}

/**
 * Temperatures one request may list: each window is decoded at most this many times (openai's
 * default schedule 0, 0.2, …, 1 is as long), so no request costs more than this many greedy decodes.
 */
export const MAX_TEMPERATURES = 6;

/** Beams (`beamSize`) or samples (`bestOf`) one window may be decoded with. */
export const MAX_SEARCH_ROWS = 10;
/**
 * beamSize × bestOf at most. A window is decoded with beamSize rows at temperature 0 and bestOf
 * rows at each later one, so with this and MAX_SEARCH_ROWS no window takes more than 2 + 10 × 5
 * = 52 decoder rows, where the default decode takes at most 6 (one per temperature).
 */
export const MAX_SEARCH_PRODUCT = 25;
/**
 * `patience` range. A beam search stops once round(beamSize × patience) beams have finished, or
 * at the window's token limit whatever the patience: past 1 it costs more steps, never more rows.
 */
export const MIN_PATIENCE = 0.5;
export const MAX_PATIENCE = 5;

/** A text token of the transcript and its log probability, as OpenAI's `include[]=logprobs` reports it. */
export interface TokenLogprob {
  /** The token's text (U+FFFD where it holds part of a character). */
  token: string;
  logprob: number;
  /** The token's UTF-8 bytes. */
  bytes: number[];
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  /** Decoding details, from Whisper's own window decoder (long-form-decoder.ts) only. */
  details?: SegmentDetails;
  /** With `words: true`: the segment's words, seconds from the start of the audio. */
  words?: TranscriptWord[];
  /** With `decoding.logprobs`, in the segments reported on the way (`onSegments`): the segment's text tokens. */
  logprobs?: TokenLogprob[];
}

/** What openai/whisper reports of each segment (OpenAI's verbose_json segment fields). */
export interface SegmentDetails {
  /** Mel frame (10 ms) where the segment's 30-s window starts. */
  seek: number;
  /** The segment's token ids, timestamp tokens included. */
  tokens: number[];
  /** Sampling temperature of the window's accepted decode. */
  temperature: number;
  /** The window's average log probability per token, its text's gzip compression ratio and its no-speech probability. */
  avgLogprob: number;
  compressionRatio: number;
  noSpeechProb: number;
}

export interface TranscriptWord {
  /** The word as decoded: with its leading space, punctuation attached. */
  word: string;
  start: number;
  end: number;
}

export interface Transcript {
  text: string;
  language?: string;
  /** The language's English name in lower case (`english`), as OpenAI's verbose_json names it. */
  languageName?: string;
  duration: number;
  segments?: TranscriptSegment[];
  /** With `decoding.logprobs`: the text tokens of the transcript, in order. */
  logprobs?: TokenLogprob[];
}

/**
 * Audio exactly as uploaded. Transcribers decode it inside their worker thread, so decoding
 * never runs on the event loop and the compressed bytes are all that crosses threads.
 */
export interface EncodedAudio {
  bytes: Uint8Array;
  /** The client's declared media type, a hint only: formats are sniffed from the bytes. */
  contentType?: string;
  /** Longer audio is rejected with 413 while decoding. */
  maxSeconds: number;
}

export interface Transcriber extends Disposable {
  transcribe(audio: PcmAudio | EncodedAudio, options?: TranscribeOptions): Promise<Transcript>;
}

/** How a realtime session's audio bytes encode its samples: PCM16 little-endian, or G.711 µ-law / A-law (a byte a sample). */
export type LiveAudioEncoding = 'pcm16' | 'g711-ulaw' | 'g711-alaw';

export interface LiveAudioOptions {
  inputSampleRate: number;
  encoding: LiveAudioEncoding;
  /** Speech probabilities too (server VAD); needs the voice-activity model. */
  detectSpeech: boolean;
}

/** Live audio as a realtime session receives it, on its way to a Transcriber. */
export interface LiveAudioStream {
  /**
   * Mono bytes in the stream's encoding at its input rate (whole samples) → the same audio at
   * 16 kHz, and a speech probability for each 512-sample frame completed so far (none when the
   * stream was opened without speech detection).
   */
  push(audio: Uint8Array): Promise<{ samples: Float32Array; speechProbabilities: Float32Array }>;
  close(): Promise<void>;
}

export interface SynthesizeOptions extends Cancellable {
  voice?: string;
  /** 1 is normal speed, 2 twice as fast. */
  speed?: number;
}

/** One piece of a text's speech (a sentence, or part of one). */
export interface SpeechPiece extends PcmAudio {
  /** Whether more pieces follow, when the engine knows it before they are synthesised. */
  readonly last?: boolean;
}

/** What a text-to-speech engine loads: audio samples, sentence by sentence. */
export interface PcmSynthesizer extends Disposable {
  readonly sampleRate: number;
  /** Yields audio sentence by sentence so the caller can stream it. */
  synthesize(text: string, options?: SynthesizeOptions): AsyncIterable<SpeechPiece>;
}

export const SPEECH_FORMATS = Object.freeze(['mp3', 'wav', 'pcm', 'opus', 'flac', 'aac'] as const);

export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

/** The `Content-Type` of each speech format. */
export const SPEECH_MEDIA_TYPES: Readonly<Record<SpeechFormat, string>> = Object.freeze({
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  // OpenAI's pcm: 16-bit signed little-endian mono at 24 kHz, no header.
  pcm: 'audio/pcm',
  // Ogg Opus; `audio/ogg` is what browsers play (OpenAI's own answers use the container type too).
  opus: 'audio/ogg',
  flac: 'audio/flac',
  // ADTS frames, as OpenAI's `aac` answers.
  aac: 'audio/aac',
});

export interface SpeakOptions extends SynthesizeOptions {
  format: SpeechFormat;
  /** Output sample rate (one of SPEECH_SAMPLE_RATES[format]); absent: see outputSampleRate (the voice's own, 24 kHz for pcm). */
  sampleRate?: number;
}

/**
 * The most audio a FLAC answer may hold, in seconds: it is built whole in memory (~2.6 MB a minute
 * at 22.05 kHz before compression), and every text-to-speech request may be building one at once.
 * Ten minutes is 5,000 characters of ordinary text at speed 0.5.
 */
export const MAX_WHOLE_FLAC_SECONDS = 600;

/** Output rates `speak()` can resample to, per format: MP3's nine (WAV, PCM, FLAC and AAC carry them too), Opus's five. */
export const SPEECH_SAMPLE_RATES: Readonly<Record<SpeechFormat, readonly number[]>> = OUTPUT_SAMPLE_RATES;

/**
 * A text-to-speech model as the registry hands it out: its engine's PCM plus encoding (the
 * registry owns the encoder and closes it).
 */
export interface Synthesizer extends PcmSynthesizer {
  /**
   * Encoded bytes in the requested format, streamed piece by piece; WAV comes whole (its header
   * carrying the length) when the first piece is the last one, else streamed with "unknown" sizes.
   * Text with nothing to say rejects with a ValidationError before the first chunk. Stopping
   * early (`return()`, or the signal) drops the synthesis still queued.
   */
  speak(text: string, options: SpeakOptions): AsyncGenerator<Uint8Array, void, undefined>;
}

/**
 * How speech regions are found (faster-whisper's VadOptions, same defaults): frames at or above
 * `threshold` start speech, silence shorter than `minSilenceDurationMs` does not end it, and each
 * region is widened by `speechPadMs` on both sides.
 */
export interface VadOptions {
  /** Default 0.5. */
  threshold?: number;
  /** Default threshold − 0.15 (at least 0.01): between the two, a frame continues speech. */
  negThreshold?: number;
  /** Default 0: shorter regions are dropped. */
  minSpeechDurationMs?: number;
  /** Default unbounded: longer regions are split, at a pause when there is one. */
  maxSpeechDurationS?: number;
  /** Default 2000. */
  minSilenceDurationMs?: number;
  /** Default 400. */
  speechPadMs?: number;
}

/** A stretch of speech, in seconds from the start of the audio. */
export interface SpeechRegion {
  start: number;
  end: number;
}

export interface DetectSpeechOptions extends VadOptions, Cancellable {}

/** A voice activity detection model (Silero VAD); speech-to-text also runs it inside its own worker. */
export interface VoiceActivityDetector extends Disposable {
  /** Speech regions, in order and apart; none for silence or noise. */
  detectSpeech(audio: PcmAudio, options?: DetectSpeechOptions): Promise<SpeechRegion[]>;
}

/** Which side of a retrieval pair a text is: models trained with prefixes (e5's `query: `, `passage: `) embed each differently. */
export const EMBEDDING_INPUT_TYPES = ['query', 'passage'] as const;
type EmbeddingInputType = (typeof EMBEDDING_INPUT_TYPES)[number];

interface EmbedOptions extends Cancellable {
  /** Default `passage`; ignored by models trained without prefixes. */
  inputType?: EmbeddingInputType;
}

/** A sentence-embedding model: one unit-length vector per text. */
export interface Embedder extends Disposable {
  /** Tokens of one text the model reads (longer texts are truncated), when known. */
  readonly maxInputTokens?: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
