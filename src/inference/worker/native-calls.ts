/**
 * Why a worker thread is never terminated while it is inside onnxruntime-node: `worker.terminate()`
 * stops the thread's JavaScript at once, but a native call in progress (a session being created,
 * a run) carries on, and when it returns, or throws, into the terminating thread node-addon-api
 * cannot hand it a JavaScript value or exception: it throws a C++ `Napi::Error` from its own
 * exception handler, and the whole process dies with `terminate called after throwing an instance
 * of 'Napi::Error'`. Reproduced with any ONNX file, sound or broken, by terminating a worker that
 * creates sessions in a loop; the first real case was a model whose pipeline made two sessions at
 * once: the first failed (its weights missing), the worker reported the failure, its client
 * terminated it while the second session was still loading.
 *
 * So every worker counts its calls into onnxruntime-node's binding in a SharedArrayBuffer, and the
 * client stops a thread in two steps (Dekker's handshake over sequentially consistent atomics):
 * it raises STOPPING, after which no new native call starts (it throws instead), then waits until
 * IN_NATIVE is zero, and only then terminates the thread.
 */
import { createRequire } from 'node:module';

/** Node ≥ 16 has it; the TypeScript lib this project targets does not declare it yet. */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

const STOPPING = 0;
const IN_NATIVE = 1;

/** The name an error thrown by onnxruntime's native code carries across the worker seam. */
export const ONNX_RUNTIME_ERROR = 'OnnxRuntimeError';

/** The state a client and its worker share. */
export function nativeCallState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** Thrown in the worker by a native call attempted while its thread is being stopped. */
class ThreadStoppingError extends Error {
  override name = 'ThreadStoppingError';
  constructor() {
    super('the model thread is being stopped');
  }
}

/** The native session object of onnxruntime-node's binding (binding.d.ts), as its JavaScript backend uses it. */
interface NativeSession {
  loadModel(...args: unknown[]): void;
  run(...args: unknown[]): unknown;
  endProfiling(): void;
  dispose(): void;
  readonly inputMetadata: unknown;
  readonly outputMetadata: unknown;
}

/**
 * Worker side: counts every call into onnxruntime-node's native sessions in `state`. The native
 * class's methods cannot be redefined (napi_define_class makes them read-only), but the binding's
 * export can: its backend makes each session with `new binding.InferenceSession()`, so it gets
 * this wrapper.
 */
export function guardNativeCalls(state: Int32Array): void {
  let binding: { InferenceSession: new () => NativeSession };
  try {
    ({ binding } = createRequire(import.meta.url)('onnxruntime-node/dist/binding') as { binding: typeof binding });
  } catch {
    return; // no onnxruntime-node in this build: nothing native to guard
  }
  const Native = binding.InferenceSession;
  const guarded = <R>(call: () => R): R => {
    Atomics.add(state, IN_NATIVE, 1);
    try {
      if (Atomics.load(state, STOPPING) !== 0) throw new ThreadStoppingError();
      return call();
    } catch (error) {
      // Named so that the client tells the model's failure from a bug of ours (ModelWorker: 503).
      if (error instanceof Error && !(error instanceof ThreadStoppingError)) error.name = ONNX_RUNTIME_ERROR;
      throw error;
    } finally {
      if (Atomics.sub(state, IN_NATIVE, 1) === 1) Atomics.notify(state, IN_NATIVE);
    }
  };
  // Every method and getter of the native class, forwarded through `guarded`, so one that a later
  // onnxruntime-node calls is counted too.
  const natives = new WeakMap<object, object>();
  class GuardedSession {
    constructor() {
      natives.set(
        this,
        guarded(() => new Native()),
      );
    }
  }
  const proto = Native.prototype as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor') continue;
    const { value, get } = Object.getOwnPropertyDescriptor(proto, name)!;
    if (typeof value === 'function') {
      Object.defineProperty(GuardedSession.prototype, name, {
        value(this: object, ...args: unknown[]) {
          const native = natives.get(this);
          return guarded(() => (value as (...all: unknown[]) => unknown).apply(native, args));
        },
        configurable: true,
        writable: true,
      });
    } else if (get) {
      Object.defineProperty(GuardedSession.prototype, name, {
        get(this: object) {
          const native = natives.get(this);
          return guarded(() => get.call(native));
        },
        configurable: true,
      });
    }
  }
  binding.InferenceSession = GuardedSession as unknown as new () => NativeSession;
}

/**
 * Client side: no native call starts in the thread from now on; resolves true once none is in
 * progress (the thread may be terminated), false if one is still running after `timeoutMs`
 * (the caller waits on with `untilOutOfNativeCalls` again, or leaves the thread to end).
 */
export async function untilOutOfNativeCalls(state: Int32Array, timeoutMs: number): Promise<boolean> {
  Atomics.store(state, STOPPING, 1);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const calls = Atomics.load(state, IN_NATIVE);
    if (calls === 0) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(state, IN_NATIVE, calls, left);
    if (wait.async) await wait.value;
  }
}
