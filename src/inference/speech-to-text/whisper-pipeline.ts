/**
 * transformers.js's Whisper ASR pipeline put together from parts, through its public constructors
 * only, rather than patching a loaded one: `new AutomaticSpeechRecognitionPipeline({ task, model,
 * tokenizer, processor })` and a model's `new Model(config, sessions, configs)`. A pipeline holds
 * nothing else, so one built over a loaded pipeline's parts answers as it does
 * (test/inference/speech-to-text/fast-features.test.ts and whisper-encoder-thread.test.ts pin
 * that on the real tiny.en).
 */
import { AutomaticSpeechRecognitionPipeline } from '@huggingface/transformers';

/** The parts of a loaded transformers.js ASR pipeline that make one. */
export interface AsrPipelineParts {
  model: { config: unknown; sessions: Record<string, unknown>; configs?: unknown };
  tokenizer: unknown;
  processor: unknown;
}

/** A pipeline like `asr`, with the parts in `replaced` instead of its own. */
export function rebuiltAsrPipeline<P extends AsrPipelineParts>(asr: P, replaced: Partial<AsrPipelineParts>): P {
  const parts = { model: asr.model, tokenizer: asr.tokenizer, processor: asr.processor, ...replaced };
  return new AutomaticSpeechRecognitionPipeline({ task: 'automatic-speech-recognition', ...parts } as never) as unknown as P;
}

/** A model like `model` (same class, config and configs) over `sessions`: the public constructor every transformers.js model has. */
export function modelWithSessions<M extends AsrPipelineParts['model']>(model: M, sessions: Record<string, unknown>): M {
  const Model = model.constructor as new (config: unknown, sessions: Record<string, unknown>, configs: unknown) => M;
  return new Model(model.config, sessions, model.configs);
}
