/**
 * Synthesised sentences → encoded bytes, as an async stream. MP3, PCM, Ogg Opus, FLAC and AAC
 * go out sentence by sentence through one encoder (a single valid stream); WAV needs its total
 * length in the header, so it is produced whole. `speakingSynthesizer` gives an engine's PCM synthesizer the
 * `speak()` of the Synthesizer task interface, over the registry's shared encoder.
 */
import { ValidationError } from '../../errors.js';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { followSignal } from '../abortable.js';
import type { PcmSynthesizer, SpeakOptions, Synthesizer } from '../types.js';
import type { StreamFormat } from './encoder-worker.js';
import type { AudioStream, SpeechEncoder } from './speech-encoder.js';
import { concatSamples } from '../../audio/concat-samples.js';

/** The engine's synthesizer, plus `speak()` through `encoder` (owned by the caller: the registry). */
export function speakingSynthesizer(synthesizer: PcmSynthesizer, encoder: SpeechEncoder): Synthesizer {
  return {
    sampleRate: synthesizer.sampleRate,
    synthesize: (text, options) => synthesizer.synthesize(text, options),
    speak: (text, options) => speechBytes(synthesizer, text, { ...options, encoder }),
    dispose: () => synthesizer.dispose(),
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
  options: SpeakOptions & { encoder: SpeechEncoder },
): AsyncGenerator<Uint8Array, void, undefined> {
  const { format, encoder, signal, sampleRate: outputRate, ...synthesizeOptions } = options;
  const stop = new AbortController();
  const unfollow = followSignal(signal, stop);
  try {
    const sentences = synthesizer.synthesize(text, { ...synthesizeOptions, signal: stop.signal });
    yield* format === 'wav' ? wavBytes(synthesizer, sentences, encoder, outputRate) : streamedBytes(format, synthesizer, sentences, encoder, stop, outputRate);
  } finally {
    unfollow();
    stop.abort(new Error('speech output was stopped'));
  }
}

async function* wavBytes(
  synthesizer: PcmSynthesizer,
  sentences: AsyncIterable<PcmAudio>,
  encoder: SpeechEncoder,
  outputRate?: number,
): AsyncGenerator<Uint8Array> {
  const parts: Float32Array[] = [];
  for await (const audio of sentences) parts.push(audio.samples);
  if (parts.length === 0) throw nothingToSay();
  yield await encoder.wav({ samples: concatSamples(parts), sampleRate: synthesizer.sampleRate }, outputRate);
}

/** Any format but WAV, sentence by sentence through one stream encoder. */
async function* streamedBytes(
  format: StreamFormat,
  synthesizer: PcmSynthesizer,
  sentences: AsyncIterable<PcmAudio>,
  encoder: SpeechEncoder,
  stop: AbortController,
  outputRate?: number,
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
  try {
    for (let piece = await next; !piece.done; piece = await next) {
      spoken = true;
      next = pieces.next();
      next.catch(() => {});
      const bytes = await stream.encode(piece.value.samples);
      if (bytes.length > 0) yield bytes;
    }
    if (!spoken) throw nothingToSay();
    finished = true;
    const tail = await stream.finish();
    if (tail.length > 0) yield tail;
  } finally {
    if (!finished) {
      stream.abort();
      await dropSynthesis();
    }
  }
}

/** Raised before any byte is produced, so the client still gets a 400. */
function nothingToSay(): ValidationError {
  return new ValidationError('"input" contains nothing that can be spoken');
}
