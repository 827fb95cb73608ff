/**
 * Averages the first `frames` samples of each channel into a new mono array. Averaging (rather
 * than FFmpeg's 1/√2 per channel) can never clip, and Whisper normalises its log-mel input,
 * so the overall level does not matter.
 *
 * Samples are also made safe here, the one place every decoder's output passes: NaN becomes 0
 * and values are clamped to [-1, 1]. Float WAV can carry any float and corrupt frames can
 * decode to anything; clamped input keeps every later sum (resampler, features) finite.
 */
export function downmix(channels: readonly Float32Array[], frames = Math.min(...channels.map((c) => c.length))): Float32Array {
  const mono = new Float32Array(channels.length === 0 ? 0 : frames);
  if (channels.length === 0) return mono;
  const scale = 1 / channels.length;
  for (const channel of channels) {
    for (let i = 0; i < frames; i++) mono[i]! += channel[i]! * scale;
  }
  for (let i = 0; i < frames; i++) {
    const sample = mono[i]!;
    mono[i] = sample > 1 ? 1 : sample < -1 ? -1 : Number.isNaN(sample) ? 0 : sample;
  }
  return mono;
}
