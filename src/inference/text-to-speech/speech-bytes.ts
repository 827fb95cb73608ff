/**
 * Synthesised pieces → encoded bytes, as an async stream. MP3, PCM, Ogg Opus, FLAC and AAC go
 * out piece by piece through one encoder (a single valid stream). WAV's header carries its
 * length: a text spoken in one piece is sent whole with it, a longer one streams as 16-bit PCM
 * behind a header that says "length unknown" (as OpenAI's streamed WAV does), so its first
 * audio leaves as soon as an MP3's. FLAC is the one format held whole (encode-media.ts says why),
 * so its answer is bounded: at most MAX_WHOLE_FLAC_SECONDS of audio, past which the request fails
 * with 413 before any byte has been sent. `speakingSynthesizer` gives an engine's PCM synthesizer the
 * `speak()` of the Synthesizer task interface, over the registry's shared encoder.
 */
import { PayloadTooLargeError, ValidationError } from '../../errors.js';
import { wavStreamHeader } from '../../audio/encode-wav.js';
import { followSignal } from '../abortable.js';
import { MAX_WHOLE_FLAC_SECONDS, type PcmSynthesizer, type SpeakOptions, type SpeechPiece, type Synthesizer } from '../types.js';
import type { StreamFormat } from './encoder-worker.js';
import type { AudioStream, SpeechEncoder } from './speech-encoder.js';
import { concatSamples } from '../../audio/concat-samples.js';

/** The engine's synthesizer, plus `speak()` through `encoder` (owned by the caller: the registry), kept warm while the synthesizer lives. */
export function speakingSynthesizer(synthesizer: PcmSynthesizer, encoder: SpeechEncoder): Synthesizer {
  const releaseEncoder = encoder.keepWarm();
  return {
    sampleRate: synthesizer.sampleRate,
    synthesize: (text, options) => synthesizer.synthesize(text, options),
    speak: (text, options) => speechBytes(synthesizer, text, { ...options, encoder }),
    dispose: () => {
      releaseEncoder();
      return synthesizer.dispose();
    },
  };
}

/**
 * `options.signal` (the request's) stops synthesis between sentences. Stopping the generator
 * early (return(), when the response stream is destroyed) stops it too, at its next yield:
 * the synthesizer is then told to drop its queued sentences.
 */
export async function* speechBytes(
  synthesizer: PcmSynthesizer,
  text: string,
  options: SpeakOptions & { encoder: SpeechEncoder; maxFlacSeconds?: number },
): AsyncGenerator<Uint8Array, void, undefined> {
  const { format, encoder, signal, sampleRate: outputRate, maxFlacSeconds = MAX_WHOLE_FLAC_SECONDS, ...synthesizeOptions } = options;
  const stop = new AbortController();
  const unfollow = followSignal(signal, stop);
  try {
    const sentences = synthesizer.synthesize(text, { ...synthesizeOptions, signal: stop.signal });
    yield* format === 'wav'
      ? wavBytes(synthesizer, sentences, encoder, stop, outputRate)
      : streamedBytes(format, synthesizer, sentences, encoder, stop, outputRate, undefined, format === 'flac' ? maxFlacSeconds : undefined);
  } finally {
    unfollow();
    stop.abort(new Error('speech output was stopped'));
  }
}

async function* wavBytes(
  synthesizer: PcmSynthesizer,
  sentences: AsyncIterable<SpeechPiece>,
  encoder: SpeechEncoder,
  stop: AbortController,
  outputRate?: number,
): AsyncGenerator<Uint8Array> {
  const pieces = sentences[Symbol.asyncIterator]();
  const first = await pieces.next();
  if (first.done) throw nothingToSay();
  if (first.value.last === false) {
    const rate = outputRate ?? synthesizer.sampleRate;
    yield* streamedBytes('pcm', synthesizer, startingWith(first.value, pieces), encoder, stop, rate, wavStreamHeader(rate));
    return;
  }
  const parts = [first.value.samples];
  for (let piece = await pieces.next(); !piece.done; piece = await pieces.next()) parts.push(piece.value.samples);
  yield await encoder.wav({ samples: concatSamples(parts), sampleRate: synthesizer.sampleRate }, outputRate);
}

/** `first`, then what is left of `rest` (which is closed when the consumer stops early). */
async function* startingWith<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  let done = false;
  try {
    yield first;
    for (let piece = await rest.next(); !piece.done; piece = await rest.next()) yield piece.value;
    done = true;
  } finally {
    if (!done) await rest.return?.(undefined);
  }
}

/** Piece by piece through one stream encoder; `header` goes out with the first audio (never alone, so errors before it still answer 400). */
async function* streamedBytes(
  format: StreamFormat,
  synthesizer: PcmSynthesizer,
  sentences: AsyncIterable<SpeechPiece>,
  encoder: SpeechEncoder,
  stop: AbortController,
  outputRate?: number,
  header?: Uint8Array,
  maxSeconds?: number,
): AsyncGenerator<Uint8Array> {
  // Synthesis of the first piece starts while the encoder stream opens (time to first byte).
  const pieces = sentences[Symbol.asyncIterator]();
  let next = pieces.next();
  next.catch(() => {}); // observed below; this only avoids an unhandled rejection meanwhile
  // The synthesizer is busy with a sentence nobody will read: abort it first, or return()
  // would wait for that sentence before it takes effect.
  const dropSynthesis = async () => {
    stop.abort(new Error('speech output was stopped'));
    await pieces.return?.(undefined);
  };
  let stream: AudioStream;
  try {
    stream = await encoder.openStream(format, synthesizer.sampleRate, outputRate);
  } catch (error) {
    await dropSynthesis();
    throw error;
  }
  let finished = false;
  let spoken = false;
  let unsent = header;
  const withHeader = (bytes: Uint8Array) => {
    if (!unsent) return bytes;
    const out = concatBytes(unsent, bytes);
    unsent = undefined;
    return out;
  };
  // Only FLAC holds its whole answer (above); the streamed formats hold one piece at a time.
  const maxSamples = maxSeconds === undefined ? Number.POSITIVE_INFINITY : maxSeconds * synthesizer.sampleRate;
  let samples = 0;
  try {
    for (let piece = await next; !piece.done; piece = await next) {
      next = pieces.next();
      next.catch(() => {});
      samples += piece.value.samples.length;
      if (samples > maxSamples) throw tooLongForFlac(maxSeconds as number);
      // The first piece's head is encoded on its own, so the first bytes wait for a fraction of
      // a second of audio to be encoded, not for the whole piece (LAME: ~10 ms per second).
      for (const part of spoken ? [piece.value.samples] : headFirst(piece.value.samples, synthesizer.sampleRate, format)) {
        const bytes = await stream.encode(part);
        if (bytes.length > 0) yield withHeader(bytes);
      }
      spoken = true;
    }
    if (!spoken) throw nothingToSay();
    finished = true;
    const tail = withHeader(await stream.finish());
    if (tail.length > 0) yield tail;
  } finally {
    if (!finished) {
      stream.abort();
      await dropSynthesis();
    }
  }
}

/** Audio encoded ahead of the rest of a first piece, in seconds (a handful of MP3 frames). */
const FIRST_HEAD_SECONDS = 0.25;

/** `samples` as its head and the rest, for encoders that take time per sample (PCM16 is instant: whole). */
function headFirst(samples: Float32Array, sampleRate: number, format: StreamFormat): Float32Array[] {
  const head = Math.round(FIRST_HEAD_SECONDS * sampleRate);
  if (format === 'pcm' || samples.length < 2 * head) return [samples];
  return [samples.slice(0, head), samples.subarray(head)];
}

function concatBytes(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

function tooLongForFlac(maxSeconds: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `"input" makes more than ${maxSeconds / 60} minutes of audio, more than a FLAC answer (sent whole) may hold; ask for mp3, opus, aac, wav or pcm, which stream, or send less text`,
  );
}

/** Raised before any byte is produced, so the client still gets a 400. */
function nothingToSay(): ValidationError {
  return new ValidationError('"input" contains nothing that can be spoken', 'input');
}
