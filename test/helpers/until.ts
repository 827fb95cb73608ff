/**
 * Waits for `condition` to hold, polling; throws naming `what` if it does not within `timeoutMs`.
 * Tests wait for the event they need instead of sleeping for a guessed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, what = 'the condition', timeoutMs = 5_000, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves after `ms`: for tests where time passing is the behaviour under test. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
