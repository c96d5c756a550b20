import type { RedisOptions } from 'ioredis';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';

/**
 * Sentinel connections (`connection: { sentinels: [...], name }`): validation of what ioredis
 * would otherwise accept and fail on later (or never), and the defaults that make the store follow
 * a promotion quickly: a short reconnect delay (each attempt asks the sentinels for the primary)
 * and a reconnect when a demoted server answers READONLY.
 */

/** True when ioredis options find the primary through Sentinel (`sentinels` given). */
export function isSentinelOptions(options: RedisOptions): boolean {
  return 'sentinels' in options && options.sentinels !== undefined;
}

const MASTER_NAME = /^[^\s]{1,200}$/;

/** Throws `InvalidStoreOptionError` naming the problem when Sentinel options cannot work. */
export function assertSentinelOptions(options: RedisOptions): void {
  const fail = (problem: string): never => {
    throw new InvalidStoreOptionError(
      `Invalid Sentinel connection: ${problem}. Use { sentinels: [{ host, port }, ...], name: '<master name>' }, ` +
        'listing the Sentinel processes (usually three, port 26379) and the master name they monitor.',
    );
  };
  const { sentinels, name, role } = options;
  if (!Array.isArray(sentinels) || sentinels.length === 0) fail('`sentinels` must be a non-empty array');
  (sentinels as unknown[]).forEach((sentinel, i) => {
    if (typeof sentinel !== 'object' || sentinel === null) return fail(`sentinels[${i}] is ${JSON.stringify(sentinel)}, not { host, port }`);
    const { host, port } = sentinel as { host?: unknown; port?: unknown };
    if (host !== undefined && (typeof host !== 'string' || host.trim() === '')) fail(`sentinels[${i}].host must be a non-empty string`);
    if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65_535)) {
      fail(`sentinels[${i}].port is ${JSON.stringify(port)}; use an integer from 1 to 65535`);
    }
  });
  if (typeof name !== 'string' || !MASTER_NAME.test(name)) fail(`\`name\` (the master name, e.g. "mymaster") is ${JSON.stringify(name)}`);
  if (role !== undefined && role !== 'master') fail(`role "${String(role)}": the store writes, so it must talk to the primary (omit role)`);
}

/**
 * Reconnect delay of a Sentinel connection: each attempt asks the sentinels for the current
 * primary, so it stays short (25 ms, growing to 200 ms) and a promotion is followed within about
 * 200 ms of the sentinels announcing it, instead of waiting out a long backoff.
 */
export function sentinelReconnectDelay(attempt: number): number {
  return Math.min(25 * attempt, 200);
}

/** After this long without a READONLY reply, the next one reconnects at once again. */
export const READONLY_QUIET_MS = 30_000;

/**
 * `reconnectOnError` of a connection the store opens (one function per connection): a READONLY
 * reply means the server was demoted to a replica (a failover happened while the connection
 * stayed open). Reconnect: through Sentinel that reaches the new primary; with a URL it helps when
 * the name follows the primary (a managed service's endpoint, a DNS name moved by the failover).
 * While the server keeps answering READONLY (a URL that names the demoted server itself), the
 * reconnects back off by `delayOf(n)` for the n-th one, as reconnects after an outage do, instead
 * of one per refused call; `READONLY_QUIET_MS` without READONLY starts over. The refused call
 * itself is sent again by the store (store/failover.ts). `now` is for tests.
 */
export function reconnectOnReadonly(delayOf: (attempt: number) => number, now: () => number = () => performance.now()): (error: Error) => boolean {
  let attempt = 0;
  let lastSeenAt = Number.NEGATIVE_INFINITY;
  let nextAllowedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    if (!/READONLY/.test(error.message)) return false;
    const at = now();
    if (at - lastSeenAt > READONLY_QUIET_MS) attempt = 0;
    lastSeenAt = at;
    if (at < nextAllowedAt) return false;
    nextAllowedAt = at + delayOf(attempt++);
    return true;
  };
}

/** Defaults of Sentinel connections the store opens; the caller's options win. */
export const SENTINEL_DEFAULTS: RedisOptions = {
  retryStrategy: sentinelReconnectDelay,
  // Not ioredis' failoverDetector: in our failover tests a +switch-master heard while the
  // connection was reconnecting left it stuck for good (no command answered for 15 s and more).
  // A killed primary is followed by the short reconnect above, a demoted one by READONLY.
};
