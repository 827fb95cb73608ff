/**
 * The Synthesizer the HTTP layer sees. It splits text into sentences (and the first one in two,
 * at a clause or a word boundary, for a quick first byte: splitFirstPiece) and asks the synthesis worker for one piece at a
 * time, keeping the next piece queued so the worker never waits for the caller to encode and
 * send the previous one. Engines with a separate text front end (Piper's and Kokoro's espeak phonemizer)
 * get a second worker that prepares the next pieces while the model runs on the current one.
 * When the request's signal aborts, or the caller stops reading, the pieces still queued in
 * both workers are dropped; the piece being synthesised is the last one run. Each worker is a
 * ModelWorker: one that dies is replaced on the next call, its calls in flight answering 503.
 * Piper's pieces come unscaled from the worker and are levelled here, one gain per sentence (piece-join.ts).
 */
import { join } from 'node:path';
import { followSignal } from '../abortable.js';
import type { PcmSynthesizer, SpeechPiece, SynthesizeOptions } from '../types.js';
import { ModelWorker } from '../worker/model-worker.js';
import { findOnnx } from './find-onnx.js';
import { fadeJoins, SentenceLevel } from './piece-join.js';
import { piecePhonemeLimit } from './phoneme-pieces.js';
import { type FirstPieceOptions, splitFirstPiece, splitSentences } from './split-sentences.js';
import {
  PHONEMIZER_WORKER,
  SYNTHESIS_WORKER,
  type PhonemizerApi,
  type PhonemizerInit,
  type PieceInput,
  type SynthesisApi,
  type SynthesisWorkerInit,
} from './synthesis-worker-init.js';

/** Pieces whose model input is prepared ahead of the one being synthesised. */
const FRONT_END_LOOKAHEAD = 2;

export class WorkerSynthesizer implements PcmSynthesizer {
  readonly #worker: ModelWorker<SynthesisApi>;
  readonly #frontEnd: ModelWorker<PhonemizerApi> | undefined;
  readonly #firstPiece: FirstPieceOptions;
  /** Whether the worker's pieces come unscaled, for this side to level and join (Piper's). */
  readonly #joinsPieces: boolean;
  readonly sampleRate: number;

  private constructor(
    worker: ModelWorker<SynthesisApi>,
    frontEnd: ModelWorker<PhonemizerApi> | undefined,
    sampleRate: number,
    firstPiece: FirstPieceOptions,
    joinsPieces: boolean,
  ) {
    this.#worker = worker;
    this.#joinsPieces = joinsPieces;
    this.#frontEnd = frontEnd;
    this.sampleRate = sampleRate;
    this.#firstPiece = firstPiece;
  }

  /** `firstPiece`: where the first sentence is cut (splitFirstPiece's options; its defaults when absent). */
  static async spawn(init: SynthesisWorkerInit, name: string, firstPiece: FirstPieceOptions = {}): Promise<WorkerSynthesizer> {
    if (init.engine === 'piper') init = { ...init, onnxFile: init.onnxFile ?? (await findOnnx(init.modelDir)) };
    const frontEndInit = phonemizerInit(init);
    const [worker, frontEnd] = await Promise.allSettled([
      ModelWorker.start(SYNTHESIS_WORKER, { init, modelId: name, name: `tts:${name}` }),
      frontEndInit ? ModelWorker.start(PHONEMIZER_WORKER, { init: frontEndInit, modelId: name, name: `tts-text:${name}` }) : undefined,
    ]);
    const started = [worker, frontEnd].flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
    try {
      if (worker.status === 'rejected') throw worker.reason;
      if (frontEnd.status === 'rejected') throw frontEnd.reason;
      const { sampleRate } = await worker.value.call('info');
      return new WorkerSynthesizer(worker.value, frontEnd.value, sampleRate, firstPiece, init.engine === 'piper');
    } catch (error) {
      await Promise.allSettled(started.map((started) => started.dispose()));
      throw error;
    }
  }

  async *synthesize(text: string, options: SynthesizeOptions = {}): AsyncGenerator<SpeechPiece> {
    // Aborts when the request's signal does and when the consumer stops early (return()): either
    // way the pieces still queued in the workers for this request are dropped there.
    const stop = new AbortController();
    const unfollow = followSignal(options.signal, stop);
    const { signal } = stop;
    try {
      signal.throwIfAborted();
      const limit = piecePhonemeLimit(options.speed);
      // Without a phonemizer the model reads characters (MMS-TTS): the same limit, in characters.
      const [first, ...rest] = this.#frontEnd ? splitSentences(text) : splitSentences(text, limit);
      const head = first === undefined ? [] : splitFirstPiece(first, this.#firstPiece);
      const sentences = [...head, ...rest];
      const level = new SentenceLevel();
      const inputs: Promise<PieceInput[]>[] = [];
      const prepare = (index: number) => (inputs[index] ??= this.#prepare(sentences[index] as string, options.voice, limit, signal));
      // Fail on a bad voice or speed before any audio is produced (the route can still answer 400);
      // the check goes ahead of the first piece in the same worker, so the first piece waits for
      // no extra round trip.
      const checked = this.#worker.call('checkOptions', { voice: options.voice, speed: options.speed }, { signal });
      checked.catch(() => {});
      // Sentence 1 goes on sentence 0 when that was cut in two (splitFirstPiece).
      const runs = modelRuns(sentences.length, prepare, head.length > 1);
      let upcoming = await runs.next();
      let next = upcoming.done ? undefined : this.#synthesize(upcoming.value.input, options, signal);
      await checked;
      while (next && !upcoming.done) {
        const current = next;
        const { continues } = upcoming.value;
        upcoming = await runs.next();
        next = upcoming.done ? undefined : this.#synthesize(upcoming.value.input, options, signal);
        const samples = this.#join(await current, level, continues, !upcoming.done && upcoming.value.continues);
        if (samples.length > 0) yield { samples, sampleRate: this.sampleRate, last: next === undefined };
      }
    } finally {
      unfollow();
      stop.abort(new Error('speech synthesis was stopped'));
    }
  }

  async dispose(): Promise<void> {
    await Promise.allSettled([this.#worker.dispose(), this.#frontEnd?.dispose()]);
  }

  /** Piper's pieces at one level per sentence, faded where the pieces of a cut sentence meet (piece-join.ts); other engines' as they come. */
  #join(samples: Float32Array, level: SentenceLevel, continues: boolean, continued: boolean): Float32Array {
    if (!this.#joinsPieces) return samples;
    return fadeJoins(level.apply(samples, continues), this.sampleRate, { fadeIn: continues, fadeOut: continued });
  }

  /** One sentence as the inputs of its model runs: the phonemizer's pieces (phoneme-pieces.ts), or the text itself. */
  #prepare(text: string, voice: string | undefined, limit: number, signal: AbortSignal): Promise<PieceInput[]> {
    const frontEnd = this.#frontEnd;
    const prepared = frontEnd
      ? frontEnd.call('pieces', { text, voice, limit }, { signal }).then((pieces) => pieces.map((ids) => ({ ids })))
      : Promise.resolve([{ text }]);
    // If the consumer stops early (client went away), prepared pieces fail later, unread.
    prepared.catch(() => {});
    return prepared;
  }

  #synthesize(input: PieceInput, options: SynthesizeOptions, signal: AbortSignal): Promise<Float32Array> {
    const pending = this.#worker.call('synthesize', { ...input, speed: options.speed, voice: options.voice }, { signal });
    pending.catch(() => {});
    return pending;
  }
}

/**
 * The model runs of `count` sentences in order, each saying whether it goes on the sentence of
 * the run before it (a later piece of one sentence, or sentence 1 when `firstCut`). Sentences are
 * prepared FRONT_END_LOOKAHEAD ahead, so the front end works while the model runs.
 */
async function* modelRuns(
  count: number,
  prepare: (index: number) => Promise<PieceInput[]>,
  firstCut: boolean,
): AsyncGenerator<{ input: PieceInput; continues: boolean }> {
  for (let index = 0; index < count; index++) {
    // This sentence first: the front end serves its calls in order.
    const prepared = prepare(index);
    for (let ahead = index + 1; ahead <= index + FRONT_END_LOOKAHEAD && ahead < count; ahead++) prepare(ahead);
    const pieces = await prepared;
    for (const [part, input] of pieces.entries()) yield { input, continues: part > 0 || (index === 1 && firstCut) };
  }
}

/** A manifest's `firstPieceWords` as splitFirstPiece's options (its defaults when absent). */
export function firstPiece(words: number | undefined): FirstPieceOptions {
  return words === undefined ? {} : { words };
}

/** The text front end an engine has its own worker for: Piper's and Kokoro's espeak phonemizer. */
function phonemizerInit(init: SynthesisWorkerInit): PhonemizerInit | undefined {
  if (init.engine === 'piper') return { engine: 'piper', configPath: join(init.modelDir, `${init.onnxFile}.json`) };
  if (init.engine === 'kokoro') return { engine: 'kokoro', modelDir: init.modelDir };
  return undefined;
}
