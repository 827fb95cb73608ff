/**
 * One live transcription session: audio arrives in `input_audio_buffer.append` events, turns are
 * cut by server VAD (or by the client's `commit`), and each committed turn becomes an item whose
 * transcript is sent as `conversation.item.input_audio_transcription.delta` / `.completed`.
 * Settings come in the beta or the GA shape (session-dialects.ts); the session answers in the
 * shape of the last update it got (before any, the one the upgrade asked for).
 *
 * Knows nothing of WebSockets: the endpoint hands it parsed events and a `send`, so the protocol
 * is testable on its own. Audio work (PCM16 or G.711 → 16 kHz, speech probabilities) happens in a worker
 * behind `LiveAudioStream`; transcription goes through the registry's Transcriber.
 */
import { randomUUID } from 'node:crypto';
import type { RealtimeLimits } from '../../config/load-config.js';
import { AppError, PayloadTooLargeError, ValidationError } from '../../errors.js';
import type { LiveAudioOptions, LiveAudioStream, Transcriber } from '../../inference/types.js';
import { decodeBase64Audio } from './base64-audio.js';
import { type ClientEvent, type ClientEventType, LOGPROBS_INCLUDE, type ServerEvent } from './realtime-events.js';
import type { SessionBudget } from './session-budget.js';
import {
  betaChange,
  DEFAULT_TURN_DETECTION,
  type Dialect,
  describeSession,
  gaChange,
  itemEvents,
  MODEL_PARAM,
  PCM16_24K,
  SESSION_EVENTS,
  type SessionChange,
  type SessionSettings,
} from './session-dialects.js';
import { describeError, errorBody, KEY_INVALID } from './session-errors.js';
import { StreamBuffer } from './stream-buffer.js';
import { TurnDetector } from './turn-detector.js';

const SAMPLE_RATE = 16_000;
/** Silero VAD's frame at 16 kHz: one speech probability per 512 samples. */
const FRAME_SAMPLES = 512;
const FRAME_MS = (FRAME_SAMPLES * 1000) / SAMPLE_RATE;
/** OpenAI refuses to commit less than 100 ms of audio. */
const MIN_COMMIT_MS = 100;

interface SessionDeps {
  /** The session's model (from the URL's `?model=` or a session update), loaded on first use. */
  transcriber(modelId: string): Promise<Transcriber>;
  /**
   * Checks that a model the URL or a session update names can transcribe (a speech-to-text id or
   * alias, installed), as the HTTP routes would: throws their AppError (model_not_found, …) otherwise.
   */
  checkModel(name: string): Promise<void>;
  /** Opens the audio pipeline; speech probabilities only when `detectSpeech`. */
  openAudio(options: LiveAudioOptions): Promise<LiveAudioStream>;
  send(event: ServerEvent): void;
  /**
   * Checks the session's key again before a turn is transcribed and counts the turn against its
   * request limit (throws RateLimitedError past it): false when the key has been revoked or has
   * expired since the session opened.
   */
  authorizeTurn(): Promise<boolean>;
  /** Ends the session from the server's side; `reason` is the close reason. */
  end(reason: string): void;
  /** Told the audio the session holds, which bounds it (session-budget.ts). */
  budget: Pick<SessionBudget, 'buffered' | 'turnQueued' | 'turnDone'>;
  limits: RealtimeLimits;
}

export class TranscriptionSession {
  readonly id = `sess_${randomUUID().replaceAll('-', '')}`;
  readonly #deps: SessionDeps;
  readonly #abort = new AbortController();
  readonly #expiresAt: number;
  #settings: SessionSettings;
  #dialect: Dialect;
  #audio: { stream: Promise<LiveAudioStream>; options: LiveAudioOptions } | undefined;
  #detector: TurnDetector | null = null;
  /** 16-kHz audio not yet committed. */
  #buffer: StreamBuffer;
  /**
   * Where the audio stream's VAD frames fall in the session's audio: a stream (re)opened at
   * stream sample `origin` scores 512-sample frames from there; `frames` have been scored.
   */
  #frameClock = { origin: 0, frames: 0 };
  #turnItemId: string | undefined;
  #previousItemId: string | null = null;
  /** Events handled one at a time, in arrival order (appends wait for the audio worker). */
  #incoming: Promise<void> = Promise.resolve();
  #transcriptions: Promise<void> = Promise.resolve();

  /** `dialect`: the protocol the upgrade asked for; `expiresAt`: when the session's lifetime ends (epoch seconds). */
  constructor(deps: SessionDeps, initial: { model?: string; dialect: Dialect; expiresAt: number }) {
    this.#deps = deps;
    this.#buffer = new StreamBuffer((samples) => deps.budget.buffered(samples));
    this.#dialect = initial.dialect;
    this.#expiresAt = initial.expiresAt;
    this.#settings = {
      model: initial.model,
      language: undefined,
      prompt: undefined,
      format: PCM16_24K,
      turnDetection: DEFAULT_TURN_DETECTION,
      noiseReduction: null,
      include: null,
    };
    this.#detector = this.#newDetector();
  }

  /**
   * Opens the session: `*.created`, before any event of the client. A `?model=` that no request
   * could use is dropped and said so in an `error` event right after, naming the query parameter
   * (an upgrade refused over HTTP would leave a browser without the reason).
   */
  start(): void {
    this.#incoming = this.#incoming
      .then(async () => {
        const model = this.#settings.model;
        const refusal = model === undefined ? undefined : await this.#modelRefusal(model);
        if (refusal) this.#settings.model = undefined;
        if (this.#abort.signal.aborted) return;
        this.#deps.send({ type: SESSION_EVENTS[this.#dialect].created, session: this.#describe() });
        if (refusal) this.sendError(refusal.code, refusal.message, undefined, 'model');
      })
      .catch((error: unknown) => this.#sendError(error, undefined));
  }

  /** Handles one checked client event after those before it. */
  handle(event: ClientEvent): Promise<void> {
    this.#incoming = this.#incoming.then(() => this.#dispatch(event)).catch((error: unknown) => this.#sendError(error, event.event_id));
    return this.#incoming;
  }

  /** Ends the session: queued and running transcriptions stop, the audio worker stream closes. */
  async close(): Promise<void> {
    this.#abort.abort(new Error('realtime session closed'));
    await this.#closeAudio();
  }

  /** `param`: the event's field at fault, when one is. */
  sendError(code: string, message: string, eventId?: string, param?: string): void {
    this.#deps.send({ type: 'error', error: errorBody('invalid_request_error', code, message, eventId, param) });
  }

  /** The session's key is no longer valid: says so, stops all work and ends the session. */
  /** The key was found revoked or expired between turns: the same end as a turn would meet. */
  keyRevoked(): void {
    this.#keyInvalid();
  }

  #keyInvalid(): void {
    if (this.#abort.signal.aborted) return;
    this.sendError(KEY_INVALID.code, KEY_INVALID.message);
    this.#abort.abort(new Error(KEY_INVALID.message));
    this.#deps.end(KEY_INVALID.reason);
  }

  async #dispatch(event: ClientEvent): Promise<void> {
    if (this.#abort.signal.aborted) return;
    switch (event.type as ClientEventType) {
      case 'session.update':
        return this.#update('ga', gaChange((event as ClientEvent<'session.update'>).session), event.event_id);
      case 'transcription_session.update':
        return this.#update('beta', betaChange((event as ClientEvent<'transcription_session.update'>).session), event.event_id);
      case 'input_audio_buffer.append':
        return this.#append((event as ClientEvent<'input_audio_buffer.append'>).audio);
      case 'input_audio_buffer.commit':
        return this.#commitByClient(event.event_id);
      case 'input_audio_buffer.clear':
        this.#buffer.drop(this.#buffer.streamSamples);
        this.#turnItemId = undefined;
        this.#detector = this.#newDetector();
        this.#deps.send({ type: 'input_audio_buffer.cleared' });
        return;
    }
  }

  /**
   * Applies an update in either shape; from now on the session answers in that shape. A model
   * that does not exist refuses the whole update, as OpenAI's API does, so no turn fails for it later.
   */
  async #update(dialect: Dialect, change: SessionChange, eventId: string | undefined): Promise<void> {
    const refusal = change.model === undefined ? undefined : await this.#modelRefusal(change.model);
    if (this.#abort.signal.aborted) return;
    if (refusal) {
      this.sendError(refusal.code, refusal.message, eventId, MODEL_PARAM[dialect]);
      return;
    }
    this.#dialect = dialect;
    const settings = this.#settings;
    settings.model = change.model ?? settings.model;
    settings.language = change.language ?? settings.language;
    settings.prompt = change.prompt ?? settings.prompt;
    if (change.noiseReduction !== undefined) settings.noiseReduction = change.noiseReduction;
    if (change.include !== undefined) settings.include = change.include;
    // Audio already buffered is 16 kHz whatever it came as; the next append reopens the stream.
    settings.format = change.format ?? settings.format;
    if (change.turnDetection !== undefined) {
      settings.turnDetection = change.turnDetection;
      // Time keeps running; only a turn in progress is forgotten (its audio stays buffered).
      this.#detector = this.#newDetector();
      this.#turnItemId = undefined;
    }
    this.#deps.send({ type: SESSION_EVENTS[dialect].updated, session: this.#describe() });
  }

  /** Why `model` cannot transcribe (unknown, of another task, not installed), as the HTTP routes would say it; undefined when it can. */
  async #modelRefusal(model: string): Promise<AppError | undefined> {
    try {
      await this.#deps.checkModel(model);
      return undefined;
    } catch (error) {
      if (error instanceof AppError && (error.status < 500 || error.expose)) return error;
      throw error;
    }
  }

  async #append(base64: string): Promise<void> {
    const bytes = decodeBase64Audio(base64);
    const { encoding, sampleRate } = this.#settings.format;
    const bytesPerSample = encoding === 'pcm16' ? 2 : 1;
    if (bytes.length % bytesPerSample !== 0) {
      throw new ValidationError(`"audio" must be whole 16-bit samples (an even number of bytes); it decodes to ${bytes.length}`, 'audio');
    }
    const bufferCap = this.#deps.limits.maxBufferSeconds * SAMPLE_RATE;
    if (this.#settings.turnDetection === null && this.#buffer.samples + (bytes.length / bytesPerSample) * (SAMPLE_RATE / sampleRate) > bufferCap) {
      throw new PayloadTooLargeError(`The input audio buffer holds at most ${this.#deps.limits.maxBufferSeconds} s; commit or clear it`);
    }
    const audio = await this.#openAudio();
    const { samples, speechProbabilities } = await audio.push(bytes);
    if (this.#abort.signal.aborted) return;
    this.#buffer.push(samples);
    const firstFrameMs = samplesToMs(this.#frameClock.origin + this.#frameClock.frames * FRAME_SAMPLES);
    this.#frameClock.frames += speechProbabilities.length;
    if (this.#detector && this.#settings.turnDetection) {
      for (const turn of this.#detector.push(speechProbabilities, firstFrameMs)) {
        if (turn.type === 'speech_started') this.#speechStarted(turn.atMs, this.#settings.turnDetection.prefixPaddingMs);
        else this.#speechStopped(turn.atMs);
      }
      // Between turns only the prefix padding is kept.
      if (!this.#detector.speaking) {
        this.#buffer.drop(this.#buffer.streamSamples - msToSamples(this.#settings.turnDetection.prefixPaddingMs));
      }
    }
  }

  #speechStarted(atMs: number, prefixPaddingMs: number): void {
    this.#turnItemId = newItemId();
    this.#buffer.drop(msToSamples(Math.max(0, atMs - prefixPaddingMs)));
    // The spec's times are whole milliseconds; a frame (32 ms) may start at a fraction of one.
    this.#deps.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(atMs), item_id: this.#turnItemId });
  }

  #speechStopped(atMs: number): void {
    const itemId = this.#turnItemId ?? newItemId();
    this.#turnItemId = undefined;
    this.#deps.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(atMs), item_id: itemId });
    this.#commit(itemId, msToSamples(atMs));
  }

  #commitByClient(eventId: string | undefined): void {
    if (this.#buffer.samples < msToSamples(MIN_COMMIT_MS)) {
      this.sendError(
        'input_audio_buffer_commit_empty',
        `The buffer holds ${Math.round((this.#buffer.samples * 1000) / SAMPLE_RATE)} ms of audio; commit at least ${MIN_COMMIT_MS} ms`,
        eventId,
      );
      return;
    }
    const itemId = this.#turnItemId ?? newItemId();
    this.#turnItemId = undefined;
    this.#detector = this.#newDetector();
    this.#commit(itemId, this.#buffer.streamSamples);
  }

  /** Turns the buffered audio up to stream sample `end` into an item and queues its transcription. */
  #commit(itemId: string, end: number): void {
    const audio = this.#buffer.take(end);
    const previousItemId = this.#previousItemId;
    this.#previousItemId = itemId;
    this.#deps.send({ type: 'input_audio_buffer.committed', previous_item_id: previousItemId, item_id: itemId });
    for (const event of itemEvents(this.#dialect, itemId, previousItemId)) this.#deps.send(event);
    this.#deps.budget.turnQueued(audio.length);
    this.#transcriptions = this.#transcriptions.then(() => this.#transcribe(itemId, audio)).finally(() => this.#deps.budget.turnDone(audio.length));
  }

  async #transcribe(itemId: string, samples: Float32Array): Promise<void> {
    const signal = this.#abort.signal;
    if (signal.aborted) return;
    try {
      // As an HTTP request is: the key first, then what it asks for.
      const keyValid = await this.#deps.authorizeTurn();
      if (signal.aborted) return;
      if (!keyValid) {
        this.#failed(itemId, KEY_INVALID.code, KEY_INVALID.message);
        this.#keyInvalid();
        return;
      }
      const model = this.#settings.model;
      if (model === undefined) {
        throw new ValidationError(
          'No transcription model: pass ?model= on the URL, or set session.audio.input.transcription.model (beta: session.input_audio_transcription.model)',
        );
      }
      const transcriber = await this.#deps.transcriber(model);
      // Read before the samples are handed (transferred) to the model's worker.
      const seconds = Math.round((samples.length / SAMPLE_RATE) * 1000) / 1000;
      // The prompt is each turn's previous text, as OpenAI's `prompt` is a request's.
      const prompt = this.#settings.prompt?.trim() ? { prompt: this.#settings.prompt } : {};
      const logprobs = this.#settings.include?.includes(LOGPROBS_INCLUDE) === true;
      const decoding = { ...prompt, ...(logprobs ? { logprobs } : {}) };
      const transcript = await transcriber.transcribe(
        { samples, sampleRate: SAMPLE_RATE },
        { language: this.#settings.language, signal, ...(Object.keys(decoding).length > 0 ? { decoding } : {}) },
      );
      const text = transcript.text.trim();
      if (signal.aborted) return;
      // The one delta is the whole text, so it carries every token, as .completed does.
      const tokens = logprobs ? { logprobs: transcript.logprobs ?? [] } : {};
      if (text !== '')
        this.#deps.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: itemId, content_index: 0, delta: text, ...tokens });
      this.#deps.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript: text,
        ...tokens,
        // OpenAI bills whisper-1 by the second and says so in this shape; here it is what the key's usage counts.
        usage: { type: 'duration', seconds },
      });
    } catch (error) {
      if (signal.aborted) return;
      const { code, message } = describeError(error);
      this.#failed(itemId, code, message);
    }
  }

  #failed(itemId: string, code: string, message: string): void {
    this.#deps.send({
      type: 'conversation.item.input_audio_transcription.failed',
      item_id: itemId,
      content_index: 0,
      error: { type: 'transcription_error', code, message },
    });
  }

  /** The audio stream in the session's format, with speech detection exactly when VAD is on (reopened if either changed). */
  async #openAudio(): Promise<LiveAudioStream> {
    const options: LiveAudioOptions = {
      inputSampleRate: this.#settings.format.sampleRate,
      encoding: this.#settings.format.encoding,
      detectSpeech: this.#settings.turnDetection !== null,
    };
    const open = this.#audio?.options;
    if (open?.detectSpeech !== options.detectSpeech || open.encoding !== options.encoding || open.inputSampleRate !== options.inputSampleRate) {
      await this.#closeAudio();
      const stream = this.#deps.openAudio(options);
      this.#audio = { stream, options };
      // A new stream's frames start at the audio it is given next.
      this.#frameClock = { origin: this.#buffer.streamSamples, frames: 0 };
      // Opening fails when server VAD is asked for and its model is not installed: the error
      // event says so (the endpoint logs it once a session), and the next append tries again.
      stream.catch(() => (this.#audio = undefined));
    }
    return this.#audio!.stream;
  }

  async #closeAudio(): Promise<void> {
    const audio = this.#audio;
    this.#audio = undefined;
    if (audio) await (await audio.stream.catch(() => undefined))?.close();
  }

  #newDetector(): TurnDetector | null {
    const settings = this.#settings.turnDetection;
    return settings && new TurnDetector(settings, { frameMs: FRAME_MS, maxTurnMs: this.#deps.limits.maxTurnSeconds * 1000 });
  }

  #describe(): Record<string, unknown> {
    return describeSession(this.#dialect, this.#settings, { id: this.id, expiresAt: this.#expiresAt });
  }

  #sendError(error: unknown, eventId: string | undefined): void {
    const { code, message, serverFault } = describeError(error);
    const param = error instanceof ValidationError ? error.param : undefined;
    this.#deps.send({ type: 'error', error: errorBody(serverFault ? 'server_error' : 'invalid_request_error', code, message, eventId, param) });
  }
}

function newItemId(): string {
  return `item_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

function msToSamples(ms: number): number {
  return Math.round((ms * SAMPLE_RATE) / 1000);
}

function samplesToMs(samples: number): number {
  return (samples * 1000) / SAMPLE_RATE;
}
