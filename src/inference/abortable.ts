/**
 * Small helpers for the request signals of task calls (see Cancellable in types.ts).
 */

/**
 * `promise`, or a rejection with `signal.reason` as soon as the signal aborts, whichever is
 * first. The work behind `promise` is not stopped by this: callers stop it through the signal.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // nobody waits for it any more
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Makes `child` abort, with the same reason, when `parent` does. Returns the function that
 * stops following: call it when the child's work is over, so the parent keeps no listener
 * (and no reference to the child) behind.
 */
export function followSignal(parent: AbortSignal | undefined, child: AbortController): () => void {
  if (!parent) return () => {};
  if (parent.aborted) {
    child.abort(parent.reason);
    return () => {};
  }
  const onAbort = () => child.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return () => parent.removeEventListener('abort', onAbort);
}
