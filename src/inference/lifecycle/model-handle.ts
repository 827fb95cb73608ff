/**
 * The object the registry hands out for a model: it forwards to the loaded model and counts the
 * calls in flight, so the model is never unloaded under a call. A call that arrives after the model
 * was unloaded (idle time-out or eviction between `get` and the call) loads it again first. A
 * Proxy, so that it forwards every task's methods alike; its cost per call is measured in
 * docs/benchmarks.md ("HTTP layer", issue 41).
 */

/** Methods that return an async iterable (synthesis) rather than a promise. */
const ITERATING = new Set<PropertyKey>(['speak', 'synthesize']);

export interface HandleTarget {
  /** The loaded model, if it is loaded now. */
  current(): object | undefined;
  /** Loads it (again) if needed. */
  load(): Promise<object>;
  /** The last model loaded, for plain property reads (sample rate, languages). */
  last(): object;
  /** A call starts; the returned function ends it. */
  begin(): () => void;
}

export function modelHandle<M extends object>(target: HandleTarget): M {
  return new Proxy(target.last(), {
    get(_ignored, property) {
      const model = target.current() ?? target.last();
      const value = Reflect.get(model, property) as unknown;
      if (typeof value !== 'function') return value;
      // The registry disposes models; a route's dispose must not unload a shared model.
      if (property === 'dispose') return async () => {};
      return (...args: unknown[]) => call(target, property, args);
    },
  }) as M;
}

function call(target: HandleTarget, property: PropertyKey, args: unknown[]): unknown {
  const model = target.current();
  if (!model) {
    if (ITERATING.has(property)) return reloadingIterable(target, property, args);
    return target.load().then(() => call(target, property, args));
  }
  const end = target.begin();
  let result: unknown;
  try {
    result = (Reflect.get(model, property) as (...a: unknown[]) => unknown).apply(model, args);
  } catch (error) {
    end();
    throw error;
  }
  if (result instanceof Promise) return result.finally(end);
  if (isAsyncIterable(result)) return tracked(result, end);
  end();
  return result;
}

async function* reloadingIterable(target: HandleTarget, property: PropertyKey, args: unknown[]): AsyncGenerator<unknown, void, undefined> {
  await target.load();
  yield* call(target, property, args) as AsyncIterable<unknown>;
}

/**
 * The same items; the call ends when the consumer finishes, stops early (`return`) or it throws.
 * Not an `async function*`: a generator closed by `return()` before its first `next()` never runs
 * its `finally`, and a speech stream whose client left before the first chunk is closed that way.
 */
function tracked(iterable: AsyncIterable<unknown>, end: () => void): AsyncIterableIterator<unknown> {
  const inner = iterable[Symbol.asyncIterator]();
  let ended = false;
  const finish = () => {
    if (!ended) {
      ended = true;
      end();
    }
  };
  const settle = async (step: () => Promise<IteratorResult<unknown>>): Promise<IteratorResult<unknown>> => {
    try {
      const result = await step();
      if (result.done) finish();
      return result;
    } catch (error) {
      finish();
      throw error;
    }
  };
  return {
    next: (...args: [] | [unknown]) => settle(() => inner.next(...args)),
    return: async (value?: unknown) => {
      try {
        return (await inner.return?.(value)) ?? { done: true, value };
      } finally {
        finish();
      }
    },
    throw: (error?: unknown) =>
      settle(async () => {
        if (!inner.throw) throw error;
        return inner.throw(error);
      }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
}
