/**
 * Engines whose loaded models outlive the test app that loaded them, for the rest of the mocha
 * process: with --parallel a worker process runs many files, and each file's app would otherwise
 * start the same model's worker threads and ONNX sessions again (1.8–3.4 CPU-s a load). A load is
 * shared when engine, manifest entry and folders are all equal, so what a test asks for is what
 * it gets; the registry above still sees every load and unload (its lifecycle, budget and load
 * events are each app's own). The model's `dispose` waits for its calls and leaves it loaded; the
 * process's exit ends it.
 *
 * Not for tests whose subject is what a load or dispose does to the model itself (threads ended,
 * memory given back): they pass stand-in engines, or createTestApp's `shareModels: false`.
 */
import { resolve } from 'node:path';
import type { Engine, EngineContext } from '../../src/inference/engine.js';
import { ENGINES } from '../../src/inference/engines.js';
import type { ManifestEntry } from '../../src/inference/manifest.js';

const loads = new Map<string, Promise<object>>();

/** `engines` with the product's own (ENGINES) shared; a test's stand-in engines stay as they are. */
export function sharedEngines(engines: Readonly<Record<string, Engine>>): Readonly<Record<string, Engine>> {
  const real = new Set(Object.values(ENGINES));
  return Object.freeze(Object.fromEntries(Object.entries(engines).map(([name, engine]) => [name, real.has(engine) ? sharedEngine(name, engine) : engine])));
}

function sharedEngine(name: string, engine: Engine): Engine {
  return {
    ...engine,
    load: async (entry: ManifestEntry, context: EngineContext) => {
      // Folders as paths, not spellings: `models/` and `models` are one folder.
      const key = JSON.stringify([name, whatLoadsRead(entry), resolve(context.modelDir), resolve(context.modelsDir)]);
      let load = loads.get(key);
      if (!load) {
        load = engine.load(entry, context) as Promise<object>;
        loads.set(key, load);
        // A failed load is not kept: the next app tries again, as a fresh registry would.
        load.catch(() => loads.delete(key));
      }
      return keptOpen(await load) as Awaited<ReturnType<Engine['load']>>;
    },
  };
}

/** The entry without the fields that only describe or schedule the model (no engine's load reads them). */
function whatLoadsRead(entry: ManifestEntry): Partial<ManifestEntry> {
  const { description, license, default: isDefault, installCommand, idleTtl, realWeightsRunHere, diskSize, ...read } = entry;
  return read;
}

/** Calls in flight on each shared model, whichever app's handle made them. */
const inFlight = new WeakMap<object, Set<Promise<unknown>>>();
/** How long a dispose waits for calls still running (an abandoned request stops within a step). */
const SETTLE_MS = 30_000;

/**
 * `model` with a `dispose` that leaves it loaded but, as the real one would, leaves no work of
 * the closing app running into the next test: it waits for the calls in flight. Its methods run
 * on the model itself (private fields).
 */
function keptOpen(model: object): object {
  let calls = inFlight.get(model);
  if (!calls) inFlight.set(model, (calls = new Set()));
  const running = calls;
  return new Proxy(model, {
    get(target, property) {
      if (property === 'dispose') return () => settled(running);
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise) {
          running.add(result);
          const done = () => running.delete(result);
          result.then(done, done);
        }
        return result;
      };
    },
  });
}

async function settled(calls: Set<Promise<unknown>>): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  while (calls.size > 0 && Date.now() < deadline) {
    await Promise.race([Promise.allSettled([...calls]), new Promise((resolve) => setTimeout(resolve, deadline - Date.now()).unref())]);
  }
}
