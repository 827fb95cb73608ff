/** Turns the transformers.js Whisper pipeline output, or our long-form decoder's segments, into our Transcript shape. */
import type { Transcript, TranscriptSegment } from '../types.js';
import { segmentsText, type DecodedSegment } from './long-form/long-form-decoder.js';

/** The pipeline's output: `chunks` only with `return_timestamps: true`. */
export interface WhisperOutput {
  text: string;
  chunks?: { timestamp: [number | null, number | null]; text: string }[];
}

export function toTranscript(output: WhisperOutput, context: { duration: number; language?: string; segments: boolean }): Transcript {
  const transcript: Transcript = { text: output.text.trim(), duration: round(context.duration) };
  if (context.language) transcript.language = context.language;
  if (context.segments) transcript.segments = toSegments(output.chunks ?? [], context.duration);
  return transcript;
}

/**
 * Segments of our own decoder, with their decoding details and, when asked, words. Segments are
 * kept when either was asked for (the route shows what the client asked for).
 */
export function decodedTranscript(
  segments: readonly DecodedSegment[],
  context: { duration: number; language?: string; segments: boolean; words: boolean },
): Transcript {
  const transcript: Transcript = { text: segmentsText(segments), duration: round(context.duration) };
  if (context.language) transcript.language = context.language;
  if (!context.segments && !context.words) return transcript;
  transcript.segments = segments.map((segment) => {
    const start = clamp(segment.start, 0, context.duration);
    const end = clamp(segment.end, start, context.duration);
    const out: TranscriptSegment = { start: round(start), end: round(end), text: segment.text.trim(), details: segment.details };
    if (context.words) {
      out.words = (segment.words ?? []).map((word) => {
        const wordStart = clamp(word.start, 0, context.duration);
        return { word: word.word, start: round(wordStart), end: round(clamp(word.end, wordStart, context.duration)) };
      });
    }
    return out;
  });
  return transcript;
}

/**
 * Whisper leaves the last segment open (end null) when the audio ends mid-sentence, and a
 * random or confused model can emit out-of-range stamps; clamp both to the audio.
 */
function toSegments(chunks: NonNullable<WhisperOutput['chunks']>, duration: number): TranscriptSegment[] {
  return chunks.map((chunk) => {
    const start = clamp(chunk.timestamp[0] ?? 0, 0, duration);
    const end = clamp(chunk.timestamp[1] ?? duration, start, duration);
    return { start: round(start), end: round(end), text: chunk.text.trim() };
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
