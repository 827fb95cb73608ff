/**
 * The registry as a request sees it: `get` first checks that the current API key may use the
 * model (key-access.ts), and the model it returns adds what it processes to the key's usage
 * (characters of text, seconds of audio) and reports each call's time and usage to the metrics.
 * Everything else is the registry's. The metering is a Proxy over whatever methods the task's
 * model has (tasks.ts names the metered ones), not a wrapper per task to keep in step with
 * types.ts; what it costs a call is measured in docs/benchmarks.md ("HTTP layer", issue 41).
 */
import type { KeyAccess } from '../auth/key-access.js';
import { AdminRequiredError } from '../errors.js';
import type { ModelRegistry } from '../inference/model-registry.js';
import { usageMeter, type ModelForTask, type Task, type Usage } from '../inference/tasks.js';

/** What the metrics learn of each model call: its time (a stream's until its last chunk) and usage. */
export interface InferenceObserver {
  call(call: { model: string; task: Task; seconds: number; ok: boolean; usage: Usage | undefined }): void;
}

/** What the HTTP layer uses of the model registry. */
export type Models = Pick<ModelRegistry, 'get' | 'list' | 'resolve' | 'taskOf' | 'defaultModel' | 'openLiveAudio' | 'decodeTokens' | 'load' | 'unload'>;

/** `announce` is told the model each `get` resolved to (the X-Model answer header). */
export function scopedModels(registry: ModelRegistry, access: KeyAccess, observer?: InferenceObserver, announce?: (modelId: string) => void): Models {
  return {
    list: () => registry.list(),
    resolve: (name, task) => registry.resolve(name, task),
    taskOf: (name) => registry.taskOf(name),
    defaultModel: (task) => registry.defaultModel(task),
    openLiveAudio: (options) => registry.openLiveAudio(options),
    decodeTokens: (encoding, inputs, options) => registry.decodeTokens(encoding, inputs, options),
    // Loading and unloading change what every key gets: admin keys only.
    load: async (name) => (requireAdmin(access, 'Loading a model'), registry.load(name)),
    unload: async (name) => (requireAdmin(access, 'Unloading a model'), registry.unload(name)),
    async get<T extends Task>(name: string, task: T): Promise<ModelForTask[T]> {
      const { id, model } = await registry.open(name, task, (resolved) => {
        access.checkModel(name, resolved);
        announce?.(resolved);
      });
      return counting(model, { model: id, task, access, observer });
    },
  };
}

function requireAdmin(access: KeyAccess, what: string): void {
  if (!access.current()?.admin) throw new AdminRequiredError(what);
}

function counting<M extends object>(model: M, call: { model: string; task: Task; access: KeyAccess; observer: InferenceObserver | undefined }): M {
  const { access, observer } = call;
  return new Proxy(model, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      // What the task's row meters (tasks.ts): its input text, or a transcript's duration.
      const measure = usageMeter(call.task, property);
      // Bound to the model itself: its methods use private fields a proxy does not have.
      if (!measure) return value.bind(target);
      return (...args: unknown[]) => {
        const started = performance.now();
        const report = (ok: boolean, usage?: Usage) => {
          if (usage) access.count(usage);
          observer?.call({ model: call.model, task: call.task, seconds: (performance.now() - started) / 1000, ok, usage });
        };
        const result = value.apply(target, args);
        if (result instanceof Promise) {
          return result.then(
            (done: unknown) => (report(true, measure(args, done)), done),
            (error: unknown) => {
              report(false);
              throw error;
            },
          );
        }
        if (isAsyncGenerator(result)) return timedStream(result, (ok) => report(ok, measure(args, undefined)));
        report(true, measure(args, result));
        return result;
      };
    },
  });
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown, unknown> {
  return typeof (value as AsyncGenerator | undefined)?.[Symbol.asyncIterator] === 'function' && typeof (value as AsyncGenerator).next === 'function';
}

/** The same stream, reporting once when it ends: complete, failed, or given up by its reader. */
async function* timedStream<T>(stream: AsyncGenerator<T, unknown, unknown>, done: (ok: boolean) => void): AsyncGenerator<T, void, undefined> {
  let ok = false;
  try {
    yield* stream;
    ok = true;
  } finally {
    done(ok);
  }
}
