/** Turns the transformers.js Whisper pipeline output into our Transcript shape. */
import type { Transcript, TranscriptSegment } from '../types.js';

/** The pipeline's output: `chunks` only with `return_timestamps: true`. */
export interface WhisperOutput {
  text: string;
  chunks?: { timestamp: [number | null, number | null]; text: string }[];
}

export function toTranscript(
  output: WhisperOutput,
  context: { duration: number; language?: string; segments: boolean },
): Transcript {
  const transcript: Transcript = { text: output.text.trim(), duration: round(context.duration) };
  if (context.language) transcript.language = context.language;
  if (context.segments) transcript.segments = toSegments(output.chunks ?? [], context.duration);
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
