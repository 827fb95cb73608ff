/** SubRip and WebVTT renderings of transcript segments (OpenAI response_format srt / vtt). */
import type { TranscriptSegment } from '../../../inference/types.js';

export function toSrt(segments: readonly TranscriptSegment[]): string {
  return segments.map((segment, index) => `${index + 1}\n${clock(segment.start, ',')} --> ${clock(segment.end, ',')}\n${segment.text}\n`).join('\n');
}

export function toWebVtt(segments: readonly TranscriptSegment[]): string {
  const cues = segments.map((segment) => `${clock(segment.start, '.')} --> ${clock(segment.end, '.')}\n${segment.text}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}

/** 3725.5 → "01:02:05,500" (SRT) or "01:02:05.500" (VTT). */
function clock(seconds: number, separator: ',' | '.'): string {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const h = Math.floor(millis / 3_600_000);
  const m = Math.floor((millis % 3_600_000) / 60_000);
  const s = Math.floor((millis % 60_000) / 1000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(millis % 1000, 3)}`;
}
