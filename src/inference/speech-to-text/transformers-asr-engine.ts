/**
 * Engine `transformers-asr`: Whisper in the transformers.js layout (config.json,
 * generation_config.json, preprocessor/tokenizer files, onnx/encoder_model*.onnx and
 * onnx/decoder_model_merged*.onnx) run by onnxruntime-node in a worker thread. Options: asr-options.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AUDIO_FORMATS } from '../../audio/sniff-format.js';
import { defineEngine, type EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Transcriber } from '../types.js';
import { AsrOptions, asrOptionsRule, defaultThreads, prepacksWeights } from './asr-options.js';
import type { AsrWorkerInit } from './asr-worker-protocol.js';
import { vadModelFile } from './vad/silero-vad-engine.js';
import { WhisperTranscriber } from './whisper-transcriber.js';

export const transformersAsrEngine = defineEngine({
  tasks: ['speech-to-text'],
  options: AsrOptions,
  rule: asrOptionsRule,

  async load(entry: ManifestEntry, context: EngineContext, options: AsrOptions): Promise<Transcriber> {
    const generation = await readGenerationConfig(context.modelDir);
    const multilingual = options.multilingual ?? generation.multilingual;
    const threads = options.threads ?? defaultThreads();
    const init: AsrWorkerInit = {
      modelsDir: context.modelsDir,
      modelId: entry.id,
      dtype: options.dtype,
      threads,
      fastFeatures: options.fastFeatures,
      nice: options.threadNice,
      memoryArena: options.memoryArena,
      prepackWeights: prepacksWeights(options),
      spinning: options.spinning,
      batchMemoryBytes: options.batchMemoryMb * 2 ** 20,
      encoderThreads: options.encoderThreads ?? threads,
      vadModelFile: await vadModelFile(context.modelsDir),
      logLevel: context.logLevel,
    };
    return WhisperTranscriber.start(init, { ...options, modelId: entry.id, multilingual, languages: generation.languages });
  },

  describe(_entry, options) {
    return {
      input_formats: AUDIO_FORMATS,
      ...(options.multilingual !== undefined ? { multilingual: options.multilingual } : {}),
    };
  },
});

/**
 * Whisper's generation_config.json says whether language/task tokens exist (tiny.en: false) and
 * which languages have one (large-v3 added `yue`; earlier vocabularies lack it).
 */
async function readGenerationConfig(modelDir: string): Promise<{ multilingual: boolean; languages?: string[] }> {
  try {
    const config = JSON.parse(await readFile(join(modelDir, 'generation_config.json'), 'utf8')) as { is_multilingual?: unknown; lang_to_id?: unknown };
    const tokens = config.lang_to_id && typeof config.lang_to_id === 'object' ? Object.keys(config.lang_to_id) : [];
    const languages = tokens.map((token) => /^<\|(.+)\|>$/.exec(token)?.[1]).filter((code): code is string => code !== undefined);
    return { multilingual: config.is_multilingual === true, languages: languages.length > 0 ? languages : undefined };
  } catch {
    return { multilingual: false };
  }
}
