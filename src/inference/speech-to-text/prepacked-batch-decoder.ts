/**
 * The Whisper decoder opened a second time with onnxruntime's weight pre-packing, for decodes of
 * several rows only (beam search, best-of sampling, a batch of VAD windows), when the model's own
 * sessions run without it (fp32, AsrOptions.prepackWeights). Unpacked, a MatMul of more than one
 * row packs its weight on every call: for a 5-row step that is the output projection's whole tied
 * embedding (80 MB for tiny.en), which made it cost ~3× a 1-row step; pre-packed ~1.2×
 * (docs/benchmarks.md, "Speech to text"). Opened on the first such decode, so a server that only
 * transcribes short clips greedily holds no packed copy; 1-row decodes keep the unpacked session,
 * their tokens and memory unchanged. The copy costs
 * about the decoder's weights again, so a decoder above MAX_PREPACKED_DECODER_BYTES (small and up)
 * is not copied: its rows run unpacked, slower, within the memory the model declares.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Dtype } from './asr-options.js';
import type { WhisperDecoderSession } from './whisper-window-decoder.js';

/** 512 MiB: tiny and base fp32 (their decoders: 208 and 118 MB here); small (~600 MB) and up are not copied. */
export const MAX_PREPACKED_DECODER_BYTES = 512 * 1024 * 1024;

export class PrepackedBatchDecoder {
  readonly #file: string;
  readonly #options: ort.InferenceSession.SessionOptions;
  #session: Promise<ort.InferenceSession> | undefined;

  /**
   * The fp32 decoder of `modelDir` with `sessionOptions` (the model's own, pre-packing on), or
   * undefined for another dtype (its sessions pre-pack already unless told not to), a model
   * without that file, or a decoder too large to hold twice (MAX_PREPACKED_DECODER_BYTES).
   */
  static of(modelDir: string, dtype: Dtype, sessionOptions: ort.InferenceSession.SessionOptions): PrepackedBatchDecoder | undefined {
    const decoderDtype = typeof dtype === 'string' ? dtype : dtype.decoder_model_merged;
    const file = join(modelDir, 'onnx', 'decoder_model_merged.onnx');
    if (decoderDtype !== 'fp32' || !existsSync(file)) return undefined;
    return weightBytes(file) <= MAX_PREPACKED_DECODER_BYTES ? new PrepackedBatchDecoder(file, sessionOptions) : undefined;
  }

  private constructor(file: string, options: ort.InferenceSession.SessionOptions) {
    this.#file = file;
    this.#options = options;
  }

  /** The session, opened on the first call. */
  session(): Promise<WhisperDecoderSession> {
    this.#session ??= ort.InferenceSession.create(this.#file, this.#options);
    return this.#session as unknown as Promise<WhisperDecoderSession>;
  }

  async dispose(): Promise<void> {
    await (await this.#session?.catch(() => undefined))?.release();
  }
}

/** The graph file and its external data, when the weights are kept beside it. */
function weightBytes(file: string): number {
  const data = `${file}_data`;
  return statSync(file).size + (existsSync(data) ? statSync(data).size : 0);
}
