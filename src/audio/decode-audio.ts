import { UndecodableAudioError } from '../errors.js';
import type { PcmAudio } from './pcm-audio.js';

/**
 * Decodes MP3/WAV/FLAC/Ogg bytes to 16 kHz mono Float32 PCM.
 * TODO(speech issue): real decoders in a worker.
 */
export async function decodeAudio(_bytes: Uint8Array, _contentType: string): Promise<PcmAudio> {
  throw new UndecodableAudioError('no decoder installed yet');
}
