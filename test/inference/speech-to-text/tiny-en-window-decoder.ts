/**
 * The real whisper-tiny.en pipeline and a WhisperWindowDecoder over it, for the decoder tests that
 * drive windows by hand. Installed by `npm run test-models`; `tinyEnAvailable()` says whether it
 * is installed (the tests skip otherwise).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline, type Tensor } from '@huggingface/transformers';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { whisperSpecialTokens, whisperStartTokens, type WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import type { WhisperSeq2Seq } from '../../../src/inference/speech-to-text/decoder/decoder-passes.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const MODEL_ID = 'whisper-tiny.en';

/** The parts of transformers.js's ASR pipeline the tests use. */
export interface TinyEnPipeline {
  model: WhisperSeq2Seq & { generation_config: Parameters<typeof whisperSpecialTokens>[0] };
  tokenizer: {
    get_vocab(): Map<string, number>;
    encode(text: string, options: { add_special_tokens: boolean }): number[];
    decode(ids: number[], options: { skip_special_tokens: boolean }): string;
  };
  processor(pcm: Float32Array): Promise<{ input_features: Tensor }>;
  dispose(): Promise<void>;
}

export interface TinyEnWindowDecoder {
  asr: TinyEnPipeline;
  tokens: WhisperSpecialTokens;
  decoder: WhisperWindowDecoder;
  /** English, transcribe, timestamps on. */
  startTokens: number[];
}

export function tinyEnAvailable(): boolean {
  return existsSync(join(MODELS_DIR, MODEL_ID, '.installed.json'));
}

export async function loadTinyEnWindowDecoder(): Promise<TinyEnWindowDecoder> {
  configureRuntime({ modelsDir: MODELS_DIR });
  const asr = (await pipeline('automatic-speech-recognition', MODEL_ID, { dtype: 'fp32', device: 'cpu' })) as unknown as TinyEnPipeline;
  const tokens = whisperSpecialTokens(asr.model.generation_config, asr.tokenizer.get_vocab())!;
  return { asr, tokens, decoder: new WhisperWindowDecoder(asr.model, tokens), startTokens: whisperStartTokens(asr.model.generation_config, {}) };
}
