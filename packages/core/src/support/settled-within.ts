/**
 * Waits for `promise` to settle (fulfilled or rejected), but no longer than `ms`. Resolves true when
 * it settled in time, false when the time ran out first; never rejects, and leaves no timer behind.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
