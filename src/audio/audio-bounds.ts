/**
 * The audio parameters decoding accepts. Headers are untrusted input: a WAV can declare a
 * 4 GHz sample rate and 65 535 channels in 44 bytes, and every later step (buffer sizes, the
 * resampler's kernel, the work per second of audio) scales with these numbers. Each decoder
 * checks them against these bounds before it allocates anything sized by them.
 */
import { UndecodableAudioError } from '../errors.js';

/**
 * 1 kHz: no real recording is slower (telephony, the lowest in use, is 8 kHz). Slow rates are
 * cheap anyway: the duration limit bounds the output, and upsampling costs 34 taps a sample.
 */
const MIN_SAMPLE_RATE = 1_000;

/**
 * 384 kHz: the fastest rate of current studio converters (DXD is 352.8 kHz). WAV, FLAC frame
 * headers and Vorbis can state more, but nothing records speech that way, and both the decode
 * work and the resampler's kernel (16 zero crossings at the model's rate) grow with the rate.
 */
const MAX_SAMPLE_RATE = 384_000;

/**
 * 8: 7.1 surround, the largest layout FLAC allows and the largest that Vorbis, Opus (mapping
 * family 1) and WAV define speaker positions for. Speech models hear one downmixed channel,
 * and a decoder's output per call grows with the channel count.
 */
const MAX_CHANNELS = 8;

export const SAMPLE_RATE_RANGE_TEXT = `${MIN_SAMPLE_RATE}–${MAX_SAMPLE_RATE} Hz`;

export function isSupportedSampleRate(rate: number): boolean {
  return Number.isInteger(rate) && rate >= MIN_SAMPLE_RATE && rate <= MAX_SAMPLE_RATE;
}

/** Throws a 400 naming the format when a stream's sample rate is outside the supported range. */
export function checkSampleRate(rate: number, format: string): void {
  if (!isSupportedSampleRate(rate)) {
    throw new UndecodableAudioError(`the ${format} sample rate ${rate} Hz is outside the supported range ${SAMPLE_RATE_RANGE_TEXT}`);
  }
}

/** Throws a 400 naming the format when a stream has no channels or more than MAX_CHANNELS. */
export function checkChannelCount(channels: number, format: string): void {
  if (!(Number.isInteger(channels) && channels >= 1 && channels <= MAX_CHANNELS)) {
    throw new UndecodableAudioError(`the ${format} audio has ${channels} channels; 1 to ${MAX_CHANNELS} are supported`);
  }
}
