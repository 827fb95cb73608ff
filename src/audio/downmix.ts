/**
 * Averages channels into one. Averaging (rather than FFmpeg's 1/√2 per channel) can never
 * clip, and Whisper normalises its log-mel input, so the overall level does not matter.
 */
export function downmix(channels: readonly Float32Array[]): Float32Array {
  if (channels.length === 0) return new Float32Array(0);
  if (channels.length === 1) return channels[0]!;
  const length = Math.min(...channels.map((channel) => channel.length));
  const mono = new Float32Array(length);
  const scale = 1 / channels.length;
  for (const channel of channels) {
    for (let i = 0; i < length; i++) mono[i]! += channel[i]! * scale;
  }
  return mono;
}
