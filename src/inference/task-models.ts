/**
 * What the registry adds to each engine's model before the HTTP layer sees it, for the tasks
 * whose row in the task table (tasks.ts) gives requests another type than the engine loads:
 * synthesizers learn to speak MP3/WAV through the registry's one encoder, translators accept the
 * client's language codes. Engines stay small (PCM out, their own codes in); every other task's
 * model is handed out as its engine loaded it.
 */
import type { SpeechEncoder } from './text-to-speech/speech-encoder.js';
import { speakingSynthesizer } from './text-to-speech/speech-bytes.js';
import { resolvingTranslator } from './translation/resolving-translator.js';
import type { EngineModelForTask, ModelForTask, Task } from './tasks.js';

/** Shared services the registry owns (and closes). */
interface TaskServices {
  speechEncoder(): SpeechEncoder;
}

type Finish<T extends Task> = (model: EngineModelForTask[T], modelId: string, services: TaskServices) => ModelForTask[T];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Required for a task whose engine type differs from its request type; allowed for the others. */
type Finishes = { [T in Task as Same<EngineModelForTask[T], ModelForTask[T]> extends true ? never : T]: Finish<T> } & {
  [T in Task as Same<EngineModelForTask[T], ModelForTask[T]> extends true ? T : never]?: Finish<T>;
};

const FINISH: Finishes = Object.freeze({
  translation: (model: EngineModelForTask['translation'], modelId: string) => resolvingTranslator(model, modelId),
  'text-to-speech': (model: EngineModelForTask['text-to-speech'], _modelId: string, services: TaskServices) =>
    speakingSynthesizer(model, services.speechEncoder()),
});

export function taskModel<T extends Task>(task: T, model: EngineModelForTask[T], modelId: string, services: TaskServices): ModelForTask[T] {
  const finish = (FINISH as unknown as Partial<Record<Task, Finish<T>>>)[task];
  return finish ? finish(model, modelId, services) : (model as ModelForTask[T]);
}
