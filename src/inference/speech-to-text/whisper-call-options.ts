/** The options one ASR request passes to the transformers.js Whisper pipeline. */
import type { AsrRequest } from './asr-worker-protocol.js';

/**
 * Audio longer than one window is transcribed in `chunkLengthSeconds` windows that overlap
 * by `strideSeconds` on each side; transformers.js merges the overlaps by aligning tokens.
 * Shorter audio is one (zero-padded) window, where chunking would only add work.
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
