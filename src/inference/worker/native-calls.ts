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

/** The state a client and its worker share. */
export function nativeCallState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** Thrown in the worker by a native call attempted while its thread is being stopped. */
export class ThreadStoppingError extends Error {
  override name = 'ThreadStoppingError';
  constructor() {
    super('the model thread is being stopped');
  }
}

/** Worker side: counts every call into onnxruntime-node's session binding in `state`. */
export function guardNativeCalls(state: Int32Array): void {
  let proto: Record<string, unknown>;
  try {
    const { binding } = createRequire(import.meta.url)('onnxruntime-node/dist/binding') as { binding: { InferenceSession: { prototype: object } } };
    proto = binding.InferenceSession.prototype as Record<string, unknown>;
  } catch {
    return; // no onnxruntime-node in this build: nothing native to guard
  }
  const guarded = <A extends unknown[], R>(native: (this: unknown, ...args: A) => R) =>
    function (this: unknown, ...args: A): R {
      Atomics.add(state, IN_NATIVE, 1);
      try {
        if (Atomics.load(state, STOPPING) !== 0) throw new ThreadStoppingError();
        return native.apply(this, args);
      } finally {
        if (Atomics.sub(state, IN_NATIVE, 1) === 1) Atomics.notify(state, IN_NATIVE);
      }
    };
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor') continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    if (typeof descriptor.value === 'function') {
      Object.defineProperty(proto, name, { ...descriptor, value: guarded(descriptor.value as (...args: unknown[]) => unknown) });
    } else if (descriptor.get) {
      Object.defineProperty(proto, name, { ...descriptor, get: guarded(descriptor.get) });
    }
  }
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
