/** The options one ASR request passes to the transformers.js Whisper pipeline. */
import type { AsrRequest } from './asr-worker-protocol.js';
import { hasDecodingOptions } from './decoding/decoding-options.js';
import { transformersJsKnowsLanguage } from './whisper-languages.js';

/**
 * Whether a request needs our own window decoder (long-form-decoder.ts) rather than the
 * transformers.js pipeline: audio over one window, words or segments (each segment then carries
 * its real decoding details), decoding options (prompt, temperature, …: the pipeline takes none
 * of them as openai/whisper means them), or a language transformers.js cannot put in its start tokens
 * (large-v3's `yue`, which a v3 model can also detect).
 */
export function needsOwnDecoder(
  request: Pick<AsrRequest, 'chunkLengthSeconds' | 'words' | 'segments' | 'decoding'>,
  language: string | undefined,
  durationSeconds: number,
): boolean {
  return (
    durationSeconds > request.chunkLengthSeconds ||
    request.words ||
    request.segments ||
    hasDecodingOptions(request.decoding) ||
    (language !== undefined && !transformersJsKnowsLanguage(language))
  );
}

/**
 * Audio of one window goes to the pipeline as one (zero-padded) window. Longer audio normally
 * takes the long-form decoder (long-form-decoder.ts) instead; only a model without timestamp
 * tokens falls back to transformers.js's chunking here: `chunkLengthSeconds` windows overlapping
 * by `strideSeconds` on each side, merged by aligning tokens (which loses words without timestamps).
 */
export function whisperCallOptions(request: AsrRequest, durationSeconds: number): Record<string, unknown> {
  const options: Record<string, unknown> = { return_timestamps: request.segments };
  if (request.language) options.language = request.language;
  if (request.task) options.task = request.task;
  if (request.maxNewTokens) options.max_new_tokens = request.maxNewTokens;
  if (durationSeconds > request.chunkLengthSeconds) {
    options.chunk_length_s = request.chunkLengthSeconds;
    options.stride_length_s = request.strideSeconds;
  }
  return options;
}
