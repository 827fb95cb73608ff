/** The options one ASR request passes to the transformers.js Whisper pipeline. */
import type { AsrRequest } from './asr-worker-protocol.js';

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
