/**
 * Swaps transformers.js's Whisper log-mel computation for WhisperLogMel (same numbers, far less
 * CPU: see whisper-log-mel.ts) inside a loaded ASR pipeline. The hook is the extractor's
 * `_extract_fbank_features(waveform) → Tensor[mel, frames]` of @huggingface/transformers
 * 4.3.x; if that method or the config shape is missing, the library's own code stays.
 */
import { Tensor } from '@huggingface/transformers';
import { WhisperLogMel, type WhisperFeatureConfig } from './whisper-log-mel.js';

interface FeatureExtractorLike {
  config: Partial<WhisperFeatureConfig>;
  _extract_fbank_features?: (waveform: Float32Array) => Promise<unknown>;
}

/** Returns whether the fast path was installed. */
export function useFastWhisperFeatures(extractor: FeatureExtractorLike): boolean {
  if (typeof extractor._extract_fbank_features !== 'function' || !WhisperLogMel.supports(extractor.config)) return false;
  const logMel = new WhisperLogMel(extractor.config);
  extractor._extract_fbank_features = async (waveform: Float32Array) => {
    const { data, melBins, frames } = logMel.extract(waveform);
    return new Tensor('float32', data, [melBins, frames]);
  };
  return true;
}
