/**
 * The long-form decoder's view (LongFormModel) of a loaded transformers.js Whisper pipeline: its
 * feature extractor, our window decoder over its ONNX sessions, its special tokens and, when the
 * decoder outputs cross-attention, the word aligner.
 */
import type { Tensor } from '@huggingface/transformers';
import type { WindowsModel } from './decode-windows.js';
import { whisperSpecialTokens, type WhisperGenerationConfig } from '../decoding/whisper-special-tokens.js';
import { WhisperWindowDecoder, type WhisperWindowDecoderOptions } from '../decoder/whisper-window-decoder.js';
import type { WhisperSeq2Seq } from '../decoder/decoder-passes.js';

/** The parts of a transformers.js ASR pipeline this uses. */
export interface WhisperPipelineParts {
  model: WhisperSeq2Seq & {
    generation_config: (WhisperGenerationConfig & { alignment_heads?: [number, number][] }) | null;
    config: { median_filter_width?: number };
  };
  tokenizer: {
    get_vocab(): Map<string, number>;
    decode(ids: number[], options?: { skip_special_tokens?: boolean; clean_up_tokenization_spaces?: boolean }): string;
  };
  processor: (audio: Float32Array) => Promise<{ input_features: Tensor }>;
}

/**
 * The long-form decoder over this pipeline's model, or undefined if the model has no timestamp
 * tokens. `options`: the window decoder's (its session for decodes of several rows, and the rows
 * several windows' searches may step together in; WhisperWindowDecoder).
 */
export function whisperLongFormModel(asr: WhisperPipelineParts, options: WhisperWindowDecoderOptions = {}): WindowsModel | undefined {
  const config = asr.model.generation_config ?? {};
  const tokens = whisperSpecialTokens(config, asr.tokenizer.get_vocab());
  if (!tokens) return undefined;
  const decoder = new WhisperWindowDecoder(asr.model, tokens, options);
  const alignmentHeads = config.alignment_heads ?? [];
  return {
    features: async (pcm) => (await asr.processor(pcm)).input_features,
    decoder,
    tokens,
    detokenize: (ids) => asr.tokenizer.decode(ids, { skip_special_tokens: true }),
    aligner:
      decoder.outputsCrossAttention && alignmentHeads.length > 0
        ? {
            decoder,
            alignmentHeads,
            medianFilterWidth: asr.model.config.median_filter_width ?? 7,
            decodeRaw: (ids) => asr.tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
          }
        : undefined,
  };
}
