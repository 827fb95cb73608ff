/**
 * An hour of MP3 and of WAV decoded the way the ASR worker decodes uploads (decodeAudio16): the
 * default limits and deadline let it through, and what it holds is the 16-bit PCM (115 MB for an
 * hour at 16 kHz), not Float32 pieces joined into a second Float32 copy (460 MB at the peak).
 * The exact figure is the buffer's own byte count; the process's RSS growth is only a loose
 * check, since it also counts decoder output not yet collected (and memory an earlier test
 * freed is reused without growing it); the figures measured alone are in docs/benchmarks.md,
 * "Memory".
 */
import { expect } from 'chai';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { PayloadTooLargeError } from '../../src/errors.js';
import { mp3Silence, MP3_FRAME_SECONDS, wav8kSilence } from './hour-long-audio.js';
import { IsolatedAudio } from './isolated-audio.js';

const MB = 1024 * 1024;
const RATE = 16_000;
const HOUR = 3600;
/** The 16-bit PCM of an hour and its exponents (1 byte a 256 samples), plus the one partly filled block Pcm16Buffer may hold. */
const PCM16_HOUR_BYTES = (2 + 1 / 256) * (RATE * HOUR + MB);

describe('hour-long decode (decodeAudio16, default limits)', function () {
  this.timeout(180_000);
  const isolated = new IsolatedAudio();
  after(() => isolated.close());
  const options = { sampleRate: RATE, maxSeconds: DEFAULT_LIMITS.maxAudioSeconds };

  it('decodes 60 minutes of MP3 into 2 bytes a sample, the process growing by far less than a Float32 copy', async () => {
    const bytes = await mp3Silence(HOUR);
    const result = await isolated.decode16(bytes, { ...options, contentType: 'audio/mpeg' }, 170_000);
    expect(result.outcome.ok, String((result.outcome as { error?: Error }).error)).to.equal(true);
    const summary = (result.outcome as { summary: { length: number; byteLength: number; peak: number } }).summary;
    // All but the first frame, which has no bit reservoir to draw on.
    expect(summary.length).to.be.within((HOUR - MP3_FRAME_SECONDS) * RATE, HOUR * RATE);
    expect(summary.peak).to.equal(0);
    expect(summary.byteLength).to.be.at.most(PCM16_HOUR_BYTES);
    // Float32 would be 230 MB kept and 460 MB while joined; the bytes sent to the worker are 14 MB more.
    expect(result.peakRssGrowth).to.be.below(320 * MB);
  });

  it('decodes 60 minutes of 8-kHz WAV (resampled to 16 kHz) the same way', async () => {
    const bytes = wav8kSilence(HOUR, true);
    const result = await isolated.decode16(bytes, options, 170_000);
    expect(result.outcome.ok, String((result.outcome as { error?: Error }).error)).to.equal(true);
    const summary = (result.outcome as { summary: { length: number; byteLength: number; peak: number } }).summary;
    expect(summary.length).to.equal(HOUR * RATE);
    expect(summary.peak).to.be.within(0.03, 0.04);
    expect(summary.byteLength).to.be.at.most(PCM16_HOUR_BYTES);
    expect(result.peakRssGrowth).to.be.below(320 * MB);
  });

  it('refuses one frame past the limit with a 413', async () => {
    const result = await isolated.decode16(await mp3Silence(60 + 2 * MP3_FRAME_SECONDS), { ...options, maxSeconds: 60 }, 30_000);
    expect(result.outcome.ok).to.equal(false);
    expect((result.outcome as { error: Error }).error).to.be.instanceOf(PayloadTooLargeError);
  });
});
