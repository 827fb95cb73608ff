/** SRT and WebVTT from a transcript's segments (the upload is not sent twice to get them from the server). */
export interface TimedText {
  start: number;
  end: number;
  text: string;
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** A cue's text may not contain a blank line (it would end the cue). */
const cueText = (text: string) => text.trim().replace(/\n\s*\n/g, '\n');

export function toSrt(segments: readonly TimedText[]): string {
  return segments.map((segment, index) => `${index + 1}\n${clock(segment.start, ',')} --> ${clock(segment.end, ',')}\n${cueText(segment.text)}\n`).join('\n');
}

export function toVtt(segments: readonly TimedText[]): string {
  return `WEBVTT\n\n${segments.map((segment) => `${clock(segment.start, '.')} --> ${clock(segment.end, '.')}\n${cueText(segment.text)}\n`).join('\n')}`;
}

/** `1:02.5` for the segment list. */
export function shortClock(seconds: number): string {
  const tenths = Math.max(0, Math.round(seconds * 10));
  return `${Math.floor(tenths / 600)}:${String(Math.floor(tenths / 10) % 60).padStart(2, '0')}.${tenths % 10}`;
}
