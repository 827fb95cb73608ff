/**
 * Puts a loaded Whisper pipeline's encoder session in a thread of its own
 * (onnx-session-thread.ts): transformers.js and our window decoder call `sessions.model` of the
 * new pipeline's model, and the encoder's weights are held once, there. Batched VAD windows gain
 * from it: a window whose decoder row has ended goes on to its next window's encoder run while
 * the batch's decoder steps go on in the worker's thread, which alone kept neither of 2 cores
 * busy (docs/benchmarks.md, "Speech to text").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DTYPE_SUFFIX, DTYPES, type Dtype } from '../dtype.js';
import { OnnxSessionThread } from '../onnx-session-thread.js';
import type { OnnxSessionWorkerInit } from '../onnx-session-thread-protocol.js';
import { type AsrPipelineParts, modelWithSessions, rebuiltAsrPipeline } from './whisper-pipeline.js';

/** The encoder's file in the transformers.js layout, or undefined for a dtype we cannot place. */
export function encoderFile(modelDir: string, dtype: string | Record<string, string>): string | undefined {
  const chosen = typeof dtype === 'string' ? dtype : (dtype.encoder_model ?? 'fp32');
  if (!(DTYPES as readonly string[]).includes(chosen)) return undefined;
  return join(modelDir, 'onnx', `encoder_model${DTYPE_SUFFIX[chosen as Dtype]}.onnx`);
}

/**
 * `asr` with its encoder session (`sessions.model`) in a thread of its own: a new model over the
 * same sessions but that one, in a new pipeline (whisper-pipeline.ts), the original encoder
 * session released. `asr` itself, changed in nothing, when the file is not where transformers.js
 * keeps it. `asr` is not to be used afterwards: its encoder session is released.
 */
export async function withEncoderInThread<P extends AsrPipelineParts>(
  asr: P,
  file: string | undefined,
  init: Omit<OnnxSessionWorkerInit, 'onnxFile'>,
  modelId = 'whisper-encoder',
): Promise<P> {
  const original = asr.model.sessions.model as { release?(): Promise<void> } | undefined;
  if (!file || !original || !existsSync(file)) return asr;
  const encoder = await OnnxSessionThread.start({ ...init, onnxFile: file }, 'whisper-encoder', modelId);
  const moved = rebuiltAsrPipeline(asr, { model: modelWithSessions(asr.model, { ...asr.model.sessions, model: encoder }) });
  await original.release?.();
  return moved;
}
