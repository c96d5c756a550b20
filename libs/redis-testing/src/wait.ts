/**
 * Polling for outcomes that have no event to wait on, shared by every e2e suite. Prefer an event
 * (`nextEvent`, a promise the code under test settles) where there is one.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` every `intervalMs` until it returns a value other than `undefined` / `false`, and
 * returns that value. A probe that throws is tried again (the last error is quoted if time runs
 * out). Fails after `timeoutMs` with `what` in the message.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Polls `check` every 10 ms until it returns true; fails after `timeoutMs` with
 * `<what> not met within <timeoutMs> ms`. A check that throws fails the wait at once.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
