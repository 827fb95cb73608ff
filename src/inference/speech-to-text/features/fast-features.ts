/**
 * A loaded Whisper ASR pipeline whose log-mel features are WhisperLogMel's (same numbers, far less
 * CPU: see whisper-log-mel.ts): the loaded model and tokenizer with a processor of ours, put
 * together through transformers.js's public constructor (whisper-pipeline.ts). Of its processor, the pipeline's Whisper path
 * calls it on audio (`{ input_features }`) and reads `feature_extractor.config` (sampling rate,
 * chunk length, hop length), which is all ours offers (test/inference/speech-to-text/
 * whisper-log-mel.test.ts pins that on the real pipeline). When the extractor's config is not
 * one WhisperLogMel computes, the pipeline stays as loaded.
 */
import { Tensor } from '@huggingface/transformers';
import { type AsrPipelineParts, rebuiltAsrPipeline } from '../whisper-pipeline.js';
import { WhisperLogMel, type WhisperFeatureConfig } from './whisper-log-mel.js';

/** The feature extractor's config, as the pipeline and we read it. */
type ExtractorConfig = Partial<WhisperFeatureConfig> & { n_samples: number; sampling_rate: number };

/** What a Whisper pipeline's processor is to the pipeline and to us. */
export interface WhisperProcessor {
  (audio: Float32Array): Promise<{ input_features: Tensor }>;
  feature_extractor: { config: ExtractorConfig };
}

/**
 * A processor computing WhisperFeatureExtractor's input features with WhisperLogMel, as that
 * extractor's call does: the audio cut or zero-padded to the window (`n_samples`), features
 * [1, mel, frames]. Undefined for a config WhisperLogMel does not support.
 */
export function fastWhisperProcessor(config: ExtractorConfig): WhisperProcessor | undefined {
  if (!WhisperLogMel.supports(config)) return undefined;
  const logMel = new WhisperLogMel(config);
  const process = async (audio: Float32Array) => {
    if (!(audio instanceof Float32Array)) throw new TypeError('Whisper features are computed from a Float32Array');
    const window = new Float32Array(config.n_samples);
    window.set(audio.subarray(0, config.n_samples));
    const { data, melBins, frames } = logMel.extract(window);
    return { input_features: new Tensor('float32', data, [1, melBins, frames]) };
  };
  return Object.assign(process, { feature_extractor: { config } });
}

/** `asr` with fast features, or `asr` itself when its extractor's config does not fit. */
export function withFastWhisperFeatures<P extends AsrPipelineParts & { processor: { feature_extractor: { config: ExtractorConfig } } }>(asr: P): P {
  const processor = fastWhisperProcessor(asr.processor.feature_extractor.config);
  return processor ? rebuiltAsrPipeline(asr, { processor }) : asr;
}
