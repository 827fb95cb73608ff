/**
 * Moves a loaded Whisper pipeline's encoder session into a thread of its own
 * (onnx-session-thread.ts), in place: transformers.js and our window decoder keep calling
 * `sessions.model`, and the encoder's weights are held once, there. Batched VAD windows gain
 * from it: a window whose decoder row has ended goes on to its next window's encoder run while
 * the batch's decoder steps go on in the worker's thread, which alone kept neither of 2 cores
 * busy (docs/benchmarks.md, "Speech to text").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DTYPE_SUFFIX, DTYPES, type Dtype } from '../dtype.js';
import { OnnxSessionThread } from '../onnx-session-thread.js';
import type { OnnxSessionWorkerInit } from '../onnx-session-thread-protocol.js';

/** The encoder's file in the transformers.js layout, or undefined for a dtype we cannot place. */
export function encoderFile(modelDir: string, dtype: string | Record<string, string>): string | undefined {
  const chosen = typeof dtype === 'string' ? dtype : (dtype.encoder_model ?? 'fp32');
  if (!(DTYPES as readonly string[]).includes(chosen)) return undefined;
  return join(modelDir, 'onnx', `encoder_model${DTYPE_SUFFIX[chosen as Dtype]}.onnx`);
}

/**
 * Replaces `model.sessions.model` with the same file's session in a thread, then frees the
 * original. Returns false, changing nothing, when the file is not where transformers.js keeps it.
 */
export async function moveEncoderToThread(
  model: { sessions: Record<string, unknown> },
  file: string | undefined,
  init: Omit<OnnxSessionWorkerInit, 'onnxFile'>,
  modelId = 'whisper-encoder',
): Promise<boolean> {
  const original = model.sessions.model as { release?(): Promise<void> } | undefined;
  if (!file || !original || !existsSync(file)) return false;
  model.sessions.model = await OnnxSessionThread.start({ ...init, onnxFile: file }, 'whisper-encoder', modelId);
  await original.release?.();
  return true;
}
