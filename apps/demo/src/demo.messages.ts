/** Every message the demo shows when something goes wrong, each saying what to do. */
export const DemoMessages = {
  usage: (): string =>
    [
      'Usage: npm run demo -- [--orders N] [--timeout-ms MS] [--json FILE]',
      '',
      'Runs the orders app twice (legacy in-memory timers, then durable timeouts), each time on two',
      'instances through a rolling restart with one SIGKILL, and prints what happened to every order.',
      '',
      '  --orders N        orders placed per mode (default 300, 10..5000)',
      '  --timeout-ms MS   payment timeout of the orders app (default 4000, 2000..30000)',
      '  --json FILE       also write the figures to FILE as JSON',
      '  --help            show this help',
      '',
      'With REDIS_URL set the demo uses that Redis under its own key prefixes; otherwise it starts a',
      'throwaway redis-server (it must be on the PATH). ORDERS_APP_ENTRY runs another build of the',
      'orders app (default: apps/orders/dist/main.js).',
    ].join('\n'),
  badFlag: (detail: string): string => `${detail}\nRun with --help to see the flags.`,
  notAnInteger: (flag: string, value: string, min: number, max: number): string =>
    `--${flag} takes a whole number between ${min} and ${max}; got "${value}".`,
  ordersAppNotBuilt: (path: string): string =>
    `The orders app is not built (${path} is missing). Run \`npm run build\` first, or start the demo with \`npm run demo\`.`,
  instanceExited: (name: string, code: string, log: string): string =>
    `Orders instance ${name} exited (${code}) before it answered /health. Its log: ${log}`,
  instanceNotHealthy: (name: string, waitedMs: number, log: string): string =>
    `Orders instance ${name} did not answer /health within ${waitedMs} ms. Check its log: ${log}`,
  noLiveInstance: (waitedMs: number): string =>
    `No orders instance was reachable for ${waitedMs} ms. Check the instance logs printed below.`,
  poolClosed: (): string => 'The demo has stopped its orders instances; no request is sent any more.',
  redisUnreachable: (url: string, detail: string): string =>
    `Could not reach Redis at ${url} (${detail}). Check REDIS_URL, or unset it to let the demo start its own redis-server.`,
} as const;

/** Hides the password of a Redis URL before it is printed. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}
