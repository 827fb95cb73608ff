/**
 * The tasks the server runs, one row each. Everything that varies by task is read from here: the
 * Task type and list, the model type the HTTP layer gets (and the engine's, before the registry
 * finishes it), the default admission bound, what a call adds to its key's usage, and the OpenAPI
 * tag of its routes. A new task is a row here plus its engine (and the routes that serve it).
 *
 * Light to import and to typecheck: config, the manifest reader and (through types.ts) the
 * browser playground read it, so it names no engine, worker or Node module. What the registry
 * adds to an engine's model lives beside the registry (task-models.ts).
 */
import { characterCount } from '../character-count.js';
import type { Classifier, Embedder, PcmSynthesizer, Synthesizer, Transcriber, Translator, VoiceActivityDetector } from './types.js';

/** What a model call adds to its API key's usage. */
export interface Usage {
  characters?: number;
  audioSeconds?: number;
}

type Method = (...args: any[]) => unknown;
/** A promise's value; a stream's usage is measured when it ends, from its arguments only. */
type CallResult<R> = R extends PromiseLike<infer V> ? V : undefined;

/**
 * Per method of the task's model that is usage: what one call adds, from its arguments and what it
 * answered. Methods left out are neither counted nor timed. Keys are checked against the model's
 * interface, so renaming a method fails the typecheck here.
 */
type UsageMeter<Model> = {
  readonly [K in keyof Model as Model[K] extends Method ? K : never]?: Model[K] extends Method
    ? (args: Parameters<Model[K]>, result: CallResult<ReturnType<Model[K]>>) => Usage
    : never;
};

interface TaskRow<Engine, Model> {
  /** The OpenAPI tag of the routes that serve the task. */
  readonly tag: string;
  /**
   * Default for Limits.maxPendingRequests: requests of the task held at once (running, queued or
   * uploading) before more get 503 server_busy.
   */
  readonly maxPending: number;
  /**
   * For tasks whose requests carry large batches: body bytes one admission slot stands for, so the
   * door claims slots by the size of the body before reading it (admission.ts).
   */
  readonly bodyBytesPerSlot?: number;
  readonly usage: UsageMeter<Model>;
  /** Types only, never set: what the task's engines load, and what requests get from the registry. */
  readonly types?: { engine: Engine; model: Model };
}

/**
 * `Engine` is what the task's engines load; `Model` (default: the same) what requests get, when the
 * registry adds to it (task-models.ts must then say how).
 */
const row = <Engine, Model = Engine>(task: TaskRow<Engine, Model>): TaskRow<Engine, Model> => Object.freeze(task);

const text = ([input]: [string, ...unknown[]]): Usage => ({ characters: characterCount(input) });

const TASK_TABLE = Object.freeze({
  'text-classification': row<Classifier>({
    tag: 'classification',
    maxPending: 256,
    usage: { classify: text },
  }),
  translation: row<Translator>({
    tag: 'translation',
    maxPending: 64,
    usage: { translate: text },
  }),
  'speech-to-text': row<Transcriber>({
    tag: 'speech to text',
    // The lowest: each request may hold an upload of up to maxAudioBytes for the seconds or
    // minutes its queue takes.
    maxPending: 16,
    usage: { transcribe: (_args, transcript) => ({ audioSeconds: transcript.duration ?? 0 }) },
  }),
  'text-to-speech': row<PcmSynthesizer, Synthesizer>({
    tag: 'text to speech',
    maxPending: 32,
    // Engines give PCM; the registry's one encoder speaks MP3, Opus, … for every voice.
    usage: { speak: text },
  }),
  'voice-activity-detection': row<VoiceActivityDetector>({
    // No route serves it directly: speech to text runs it (`vad_filter`) in its own worker.
    tag: 'speech to text',
    maxPending: 16,
    usage: {},
  }),
  embeddings: row<Embedder>({
    tag: 'embeddings',
    // Two OpenAI-sized batches of 2048 texts at once.
    maxPending: 4096,
    // 8 MiB of body (/v1/embeddings' limit) over 2048 texts: 4096 slots hold at most 16 MiB of
    // bodies while they upload.
    bodyBytesPerSlot: 4096,
    usage: { embed: ([texts]) => ({ characters: texts.reduce((sum, input) => sum + characterCount(input), 0) }) },
  }),
});

type Table = typeof TASK_TABLE;

export type Task = keyof Table;

export const TASKS: readonly Task[] = Object.freeze(Object.keys(TASK_TABLE) as Task[]);

type Types<T extends Task> = NonNullable<Table[T]['types']>;

/** What the HTTP layer gets from `models.get(id, task)`. */
export type ModelForTask = { [T in Task]: Types<T>['model'] };

/** What each task's engines load; the registry turns it into the model of ModelForTask (task-models.ts). */
export type EngineModelForTask = { [T in Task]: Types<T>['engine'] };

/** The OpenAPI tag of a task's routes. */
export const taskTag = (task: Task): string => TASK_TABLE[task].tag;

/** Each task's default admission bound (Limits.maxPendingRequests). */
export const defaultMaxPending = (): Readonly<Record<Task, number>> =>
  Object.freeze(Object.fromEntries(TASKS.map((task) => [task, TASK_TABLE[task].maxPending])) as Record<Task, number>);

/** Body bytes one admission slot of the task stands for; undefined: a slot is a request or a text. */
export const bodyBytesPerSlot = (task: Task): number | undefined => (TASK_TABLE[task] as TaskRow<unknown, unknown>).bodyBytesPerSlot;

/** What a call of `method` on a model of `task` adds to its key's usage; undefined: not metered. */
export function usageMeter(task: Task, method: string | symbol): ((args: unknown[], result: unknown) => Usage) | undefined {
  const meter = TASK_TABLE[task].usage as Readonly<Record<string, (args: unknown[], result: unknown) => Usage>>;
  return typeof method === 'string' && Object.hasOwn(meter, method) ? meter[method] : undefined;
}
