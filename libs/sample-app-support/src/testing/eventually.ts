/**
 * Polls `read` until `done` holds for its value, or fails after `timeoutMs` with the last value
 * seen (for an HTTP response, its status and body).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${describeValue(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await read();
  }
  return last;
}

function describeValue(value: unknown): string {
  const body = typeof value === 'object' && value !== null && 'status' in value && 'body' in value ? { status: value.status, body: value.body } : value;
  try {
    return JSON.stringify(body);
  } catch {
    return String(body);
  }
}
