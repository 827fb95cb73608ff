/**
 * Whether a key may open a transcription session at all, decided at the upgrade: a session runs
 * Silero VAD on every append before any turn reaches the model check, so a key whose model list
 * holds no speech-to-text model (or not the one `?model=` names) must not get one.
 */
import type { KeyPolicy } from '../../auth/key-store.js';
import { AppError, ModelNotAllowedError } from '../../errors.js';
import type { Task } from '../../inference/types.js';

export interface SpeechModels {
  /** The task a model id or alias serves; throws for neither. */
  taskOf(name: string): Task;
  /** The model id `name` (an id or alias) stands for; throws the AppError a request would get. */
  resolve(name: string, task: Task): Promise<string>;
}

/** The 403 the upgrade answers, or undefined when the key may transcribe (with `requested`, if named). */
export async function speechScopeRefusal(policy: KeyPolicy, requested: string | undefined, models: SpeechModels): Promise<ModelNotAllowedError | undefined> {
  const allowed = policy.models;
  if (allowed === null) return undefined;
  // An alias on the list counts by its task, as the HTTP routes let it through by its name.
  if (!allowed.some((name) => taskOf(models, name) === 'speech-to-text')) {
    return new ModelNotAllowedError('(any speech-to-text model)', allowed);
  }
  if (requested === undefined || allowed.includes(requested)) return undefined;
  // As scoped-models.ts checks a request: the name asked for or the model it resolves to.
  const id = await models.resolve(requested, 'speech-to-text').catch((error: unknown) => {
    if (error instanceof AppError) return undefined;
    throw error;
  });
  return id !== undefined && allowed.includes(id) ? undefined : new ModelNotAllowedError(requested, allowed);
}

function taskOf(models: SpeechModels, name: string): Task | undefined {
  try {
    return models.taskOf(name);
  } catch {
    return undefined;
  }
}
