/**
 * What the registry adds to each engine's model before the HTTP layer sees it, per task:
 * synthesizers learn to speak MP3/WAV through the registry's one encoder, translators accept the
 * client's language codes. Engines stay small (PCM out, their own codes in).
 */
import type { SpeechEncoder } from './text-to-speech/speech-encoder.js';
import { speakingSynthesizer } from './text-to-speech/speech-bytes.js';
import { resolvingTranslator } from './translation/resolving-translator.js';
import type { EngineModelForTask, ModelForTask, Task } from './types.js';

/** Shared services the registry owns (and closes). */
export interface TaskServices {
  speechEncoder(): SpeechEncoder;
}

type Finish<T extends Task> = (model: EngineModelForTask[T], modelId: string, services: TaskServices) => ModelForTask[T];

const FINISH: { readonly [T in Task]: Finish<T> } = Object.freeze({
  'text-classification': (model) => model,
  translation: (model, modelId) => resolvingTranslator(model, modelId),
  'speech-to-text': (model) => model,
  'text-to-speech': (model, _modelId, services) => speakingSynthesizer(model, services.speechEncoder()),
  'voice-activity-detection': (model) => model,
});

export function taskModel<T extends Task>(task: T, model: EngineModelForTask[T], modelId: string, services: TaskServices): ModelForTask[T] {
  return (FINISH[task] as Finish<T>)(model, modelId, services);
}
