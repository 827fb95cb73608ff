/**
 * The Silero VAD file opened where it runs (the ASR worker for `vad_filter`, the live-audio worker
 * for realtime sessions, the VAD model's own worker), its folder checked first: a missing, cut
 * short or corrupt `silero_vad_v6.onnx` is a ModelFilesError naming the VAD model, its file and
 * the reinstall command (503), not an onnxruntime message in a 500.
 */
import { basename, dirname, relative } from 'node:path';
import { ModelFilesError } from '../../../errors.js';
import { ModelFolderCheck } from '../../model-folder-check.js';
import { SileroVad } from './silero-vad.js';

export async function loadVadModel(onnxFile: string): Promise<SileroVad> {
  const modelDir = dirname(onnxFile);
  const modelsDir = dirname(modelDir);
  const modelId = basename(modelDir);
  const reinstall = `Reinstall it: npm run download-models -- ${modelId}`;
  await new ModelFolderCheck().check(modelId, modelsDir, modelDir, `npm run download-models -- ${modelId}`);
  try {
    return await SileroVad.load(onnxFile);
  } catch (error) {
    // Whole as a protobuf, yet refused: corrupt inside, or another graph.
    throw new ModelFilesError(modelId, relative(modelsDir, onnxFile), `cannot be opened as Silero VAD v6 (${firstLine(error)})`, reinstall);
  }
}

/** onnxruntime's first line, without the absolute paths it names. */
function firstLine(error: unknown): string {
  const line = String((error as Error)?.message ?? error).split('\n')[0]!;
  return line.replace(/\/[^\s"':]+\//g, '').slice(0, 200);
}
