/** Sample rates MPEG-1/2/2.5 Layer III can carry; others must be resampled first. (No codec import: cheap to read anywhere.) */
export const MP3_SAMPLE_RATES = Object.freeze([8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const);
export type Mp3SampleRate = (typeof MP3_SAMPLE_RATES)[number];
