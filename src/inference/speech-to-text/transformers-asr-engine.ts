/**
 * Engine `transformers-asr`: Whisper in the transformers.js layout (config.json,
 * generation_config.json, preprocessor/tokenizer files, onnx/encoder_model*.onnx and
 * onnx/decoder_model_merged*.onnx) run by onnxruntime-node in a worker thread.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Engine, EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Transcriber } from '../types.js';
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import { readAsrOptions } from './asr-options.js';
import type { AsrWorkerInit } from './asr-worker-protocol.js';
import { WhisperTranscriber } from './whisper-transcriber.js';

const ASR_WORKER = workerModuleUrl(import.meta.url, './asr-worker');

export const transformersAsrEngine: Engine<'speech-to-text'> = {
  tasks: ['speech-to-text'],

  async load(entry: ManifestEntry, context: EngineContext): Promise<Transcriber> {
    const options = readAsrOptions(entry);
    const multilingual = options.multilingual ?? (await readIsMultilingual(context.modelDir));
    const init: AsrWorkerInit = { modelsDir: context.modelsDir, modelId: entry.id, dtype: options.dtype, threads: options.threads, fastFeatures: options.fastFeatures, nice: options.threadNice };
    const spawn = () => WorkerClient.spawn(ASR_WORKER, { init, name: `asr:${entry.id}` });
    return new WhisperTranscriber(await spawn(), { ...options, modelId: entry.id, multilingual, spawn });
  },

  describe(entry: ManifestEntry): Record<string, unknown> {
    const multilingual = entry.options?.multilingual;
    return {
      input_formats: ['mp3', 'wav', 'flac', 'ogg-opus', 'ogg-vorbis'],
      ...(typeof multilingual === 'boolean' ? { multilingual } : {}),
    };
  },
};

/** Whisper's generation_config.json says whether language/task tokens exist (tiny.en: false). */
async function readIsMultilingual(modelDir: string): Promise<boolean> {
  try {
    const config = JSON.parse(await readFile(join(modelDir, 'generation_config.json'), 'utf8')) as { is_multilingual?: unknown };
    return config.is_multilingual === true;
  } catch {
    return false;
  }
}
