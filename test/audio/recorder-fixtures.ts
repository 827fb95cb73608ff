/** The recorder-format fixtures made from the speech clips (test/fixtures/audio/SPEECH-FIXTURES.md). */
import type { AudioFormat } from '../../src/audio/sniff-format.js';

const YOUNG_MAN = 'en_librivox_sense_and_sensibility_0880.wav';
const CARDS = 'en_cards_005.wav';

/** fixture, its format, the clip it was made from. */
export const RECORDER_FIXTURES: [string, AudioFormat, string][] = [
  ['speech-16k-mono-opus.webm', 'webm', YOUNG_MAN],
  ['speech-48k-stereo-opus-live.webm', 'webm', CARDS],
  ['speech-16k-mono-aac.mka', 'webm', CARDS],
  ['speech-44k1-mono-aac.m4a', 'mp4', YOUNG_MAN],
  ['speech-48k-stereo-aac-fragmented.mp4', 'mp4', CARDS],
  ['speech-22k05-mono.aac', 'aac', YOUNG_MAN],
  ['speech-16k-mono-alac.m4a', 'mp4', CARDS],
  ['speech-16k-mono-vorbis.webm', 'webm', YOUNG_MAN],
];
