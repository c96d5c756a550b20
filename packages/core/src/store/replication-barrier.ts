import type { Redis } from 'ioredis';
import type { DurabilityOptions, TimeoutLogger } from '../types.js';

export type { DurabilityOptions };
import { DurabilityUnconfirmedError } from './durability-unconfirmed.error.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';

/** `DurabilityOptions` after defaults. */
export interface ResolvedDurability {
  replicas: number;
  timeoutMs: number;
  onUnavailable: 'refuse' | 'warn';
}

const DURABILITY_KEYS = new Set(['replicas', 'timeoutMs', 'onUnavailable']);

/** Validates `durability` (undefined: off). Throws `InvalidStoreOptionError` naming the bad field. */
export function resolveDurability(options: DurabilityOptions | undefined): ResolvedDurability | undefined {
  if (options === undefined) return undefined;
  const fail = (problem: string): never => {
    throw new InvalidStoreOptionError(`Invalid durability option: ${problem}. Use { replicas: 1, timeoutMs?: 500, onUnavailable?: 'refuse' | 'warn' }, or leave it out.`);
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail(`got ${JSON.stringify(options)}`);
  const unknown = Object.keys(options).filter((key) => !DURABILITY_KEYS.has(key));
  if (unknown.length > 0) fail(`unknown field ${unknown.join(', ')}`);
  const { replicas, timeoutMs = 500, onUnavailable = 'refuse' } = options;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 100) fail(`replicas is ${JSON.stringify(replicas)}; use an integer from 1 to 100`);
  // WAIT 0 would block for ever: a bound is required.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) fail(`timeoutMs is ${JSON.stringify(timeoutMs)}; use an integer from 1 to 60000`);
  if (onUnavailable !== 'refuse' && onUnavailable !== 'warn') fail(`onUnavailable is ${JSON.stringify(onUnavailable)}; use 'refuse' or 'warn'`);
  return { replicas, timeoutMs, onUnavailable };
}

/** What the barrier needs of the connection the writes went out on. */
export interface WaitConnection {
  /** Sends `WAIT replicas timeoutMs` on the connection that carried the writes; resolves with the replicas that have them. */
  wait(replicas: number, timeoutMs: number): Promise<number>;
  /** Changes whenever the connection was re-established: a WAIT on a new connection covers none of the old one's writes. */
  epoch(): number;
}

const WARN_EVERY_MS = 10_000;

/**
 * `WAIT` on `client`, the connection the store's writes go out on, with a local deadline of
 * `timeoutMs + graceMs` for a connection that is down (WAIT's own timeout runs on the server).
 * The epoch counts the connection's `ready` events.
 */
export function waitConnection(client: Redis, graceMs: number): WaitConnection {
  let epoch = 0;
  client.on('ready', () => epoch++);
  return {
    epoch: () => epoch,
    wait: (replicas, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`WAIT got no answer within ${timeoutMs + graceMs} ms`)), timeoutMs + graceMs);
        client.wait(replicas, timeoutMs).then(
          (count) => {
            clearTimeout(timer);
            resolve(count);
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      }),
  };
}

/**
 * Groups the `WAIT`s of concurrent calls. A WAIT covers every write sent before it on the same
 * connection, so the calls confirmed in one turn of the event loop share one WAIT, sent at the end
 * of that turn; calls that arrive while a WAIT is out share the next one, sent when it returns (a
 * write acknowledged meanwhile may have gone out after the WAIT in flight).
 */
export class ReplicationBarrier {
  private running: Promise<unknown> | undefined;
  private pending: Promise<number> | undefined;
  private lastWarning = -Infinity;

  constructor(
    private readonly durability: ResolvedDurability,
    private readonly connection: WaitConnection,
    private readonly logger: TimeoutLogger | null,
  ) {}

  /**
   * Resolves once the writes `operation` sent (and got acknowledged) on the connection reached
   * the replicas; rejects with `DurabilityUnconfirmedError` under `refuse` when they did not in time.
   */
  async confirm(operation: string): Promise<void> {
    const epoch = this.connection.epoch();
    let confirmed = await this.nextWait().catch(() => 0);
    // The WAIT went out on a new connection (a reconnect): it says nothing about this write.
    if (this.connection.epoch() !== epoch) confirmed = 0;
    const { replicas, timeoutMs, onUnavailable } = this.durability;
    if (confirmed >= replicas) return;
    const message =
      `"${operation}" was applied on the Redis primary but ${confirmed} of ${replicas} replica(s) confirmed it within ${timeoutMs} ms ` +
      '(durability option): a failover now could lose it. Check that the replicas are connected and in sync (INFO replication); retrying is safe.';
    if (onUnavailable === 'refuse') throw new DurabilityUnconfirmedError(message, operation, replicas, confirmed);
    const now = performance.now();
    if (now - this.lastWarning >= WARN_EVERY_MS) {
      this.lastWarning = now;
      this.logger?.warn(message);
    }
  }

  private nextWait(): Promise<number> {
    this.pending ??= new Promise<number>((resolve, reject) => {
      const send = () => {
        this.pending = undefined;
        const wait = this.connection.wait(this.durability.replicas, this.durability.timeoutMs);
        const running = wait.catch(() => undefined).then(() => {
          if (this.running === running) this.running = undefined;
        });
        this.running = running;
        wait.then(resolve, reject);
      };
      const previous = this.running ?? Promise.resolve();
      void previous.then(() => setImmediate(send));
    });
    return this.pending;
  }
}
