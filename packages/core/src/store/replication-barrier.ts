import { Command, type Cluster, type Redis } from 'ioredis';
import type { DurabilityOptions, TimeoutLogger } from '../types.js';
import { checkDurability, type ResolvedDurability } from '../validation/durability.js';
import { DurabilityUnconfirmedError } from './durability-unconfirmed.error.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';

export type { DurabilityOptions, ResolvedDurability };

/** Validates `durability` (undefined: off) and fills in its defaults. Throws `InvalidStoreOptionError` naming the bad field. */
export function resolveDurability(options: DurabilityOptions | undefined): ResolvedDurability | undefined {
  const checked = checkDurability(options);
  if (!checked.ok) throw new InvalidStoreOptionError(checked.message);
  return checked.value;
}

/** What the barrier needs of one connection writes go out on. */
export interface WaitConnection {
  /** Waits on the connection that carried the writes; resolves with the replicas that have them. */
  wait(replicas: number, timeoutMs: number): Promise<number>;
  /** Changes whenever the connection was re-established: a WAIT on a new connection covers none of the old one's writes. */
  epoch(): number;
}

/** Where the writes to a key go out, hence where their WAIT must go. */
export interface WaitRouter {
  /** The connection that carries writes to `key` now; undefined while that is unknown (a cluster slot without a known master). */
  connectionFor(key: string): WaitConnection | undefined;
}

/** Taken before a write: where it went out, to check at confirmation that the WAIT goes there too. */
export interface WriteTicket {
  readonly key: string;
  readonly connection: WaitConnection | undefined;
  readonly epoch: number;
}

/** Sends the wait command (WAIT or WAITAOF) on one connection; resolves with the replicas that confirmed. */
export type ReplicaWait = (client: Redis, replicas: number, timeoutMs: number) => Promise<number>;

/**
 * The wait command of a store. Plain `WAIT` (the write is in the replicas' memory), or with `aof`
 * `WAITAOF 0 replicas timeout` (the replicas also wrote it to their append-only file), which
 * needs Redis 7.2+: whether the server knows it is asked once (`COMMAND INFO waitaof`), and a
 * server without it gets `WAIT` and one warning.
 */
export function replicaWait(aof: boolean, logger: TimeoutLogger | null): ReplicaWait {
  if (!aof) return (client, replicas, timeoutMs) => client.wait(replicas, timeoutMs);
  let hasWaitAof: Promise<boolean> | undefined;
  const detect = (client: Redis): Promise<boolean> => {
    hasWaitAof ??= client.call('command', 'info', 'waitaof').then(
      (reply) => {
        const known = Array.isArray(reply) && reply[0] !== null && reply[0] !== undefined;
        if (!known) {
          logger?.warn(
            'durability.aof is set but this Redis has no WAITAOF (Redis 7.2+): schedules and cancels are confirmed with WAIT ' +
              '(in the replicas\' memory, not yet in their append-only file). Upgrade Redis, or leave aof out to silence this.',
          );
        }
        return known;
      },
      (error: unknown) => {
        hasWaitAof = undefined;
        throw error;
      },
    );
    return hasWaitAof;
  };
  return async (client, replicas, timeoutMs) => {
    if (!(await detect(client))) return client.wait(replicas, timeoutMs);
    const reply = await client.call('waitaof', '0', String(replicas), String(timeoutMs));
    return Array.isArray(reply) ? Number(reply[1]) : 0;
  };
}

/**
 * The wait command on `client`, the connection the store's writes go out on, with a local deadline
 * of `timeoutMs + graceMs` for a connection that is down (the command's own timeout runs on the
 * server). The epoch counts the connection's `ready` events.
 */
export function waitConnection(client: Redis, graceMs: number, send: ReplicaWait): WaitConnection {
  let epoch = 0;
  client.on('ready', () => epoch++);
  return {
    epoch: () => epoch,
    wait: (replicas, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`WAIT got no answer within ${timeoutMs + graceMs} ms`)), timeoutMs + graceMs);
        send(client, replicas, timeoutMs).then(
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

/** One server (or Sentinel): every write goes out on the one connection. */
export function singleWaitRouter(connection: WaitConnection): WaitRouter {
  return { connectionFor: () => connection };
}

/**
 * Redis Cluster: a WAIT covers the writes of the connection it runs on, so it must go to the
 * master that took the write, on the cluster client's own connection to that node (the one the
 * write went out on). The master is the one the client's slot map names for the key's hash slot;
 * a key whose master is unknown, or mapped under another address (a MOVED reply names the raw
 * address, a `natMap` the mapped one), gets no connection and so no confirmation.
 */
export function clusterWaitRouter(cluster: Cluster, connect: (node: Redis) => WaitConnection): WaitRouter {
  const connections = new WeakMap<Redis, WaitConnection>();
  const slots = new Map<string, number>();
  return {
    connectionFor(key) {
      let slot = slots.get(key);
      if (slot === undefined) {
        // Any one-key command hashes its key the way the cluster client routes it.
        slot = new Command('exists', [key]).getSlot();
        slots.set(key, slot);
      }
      const owner = cluster.slots[slot]?.[0];
      if (owner === undefined) return undefined;
      const node = cluster.nodes('all').find((candidate) => `${candidate.options.host}:${candidate.options.port}` === owner);
      if (!node) return undefined;
      let connection = connections.get(node);
      if (!connection) {
        connection = connect(node);
        connections.set(node, connection);
      }
      return connection;
    },
  };
}

const WARN_EVERY_MS = 10_000;

/**
 * Groups the WAITs of one connection. A WAIT covers every write sent before it on the same
 * connection, so the calls confirmed in one turn of the event loop share one WAIT, sent at the end
 * of that turn; calls that arrive while a WAIT is out share the next one, sent when it returns (a
 * write acknowledged meanwhile may have gone out after the WAIT in flight).
 */
class WaitGroup {
  private running: Promise<unknown> | undefined;
  private pending: Promise<number> | undefined;

  constructor(
    private readonly connection: WaitConnection,
    private readonly durability: ResolvedDurability,
  ) {}

  next(): Promise<number> {
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

/**
 * Confirms writes on the replicas (`durability`): one WAIT per connection the writes went out on
 * (per master on a cluster), shared by the calls of that connection confirmed together.
 */
export class ReplicationBarrier {
  private readonly groups = new WeakMap<WaitConnection, WaitGroup>();
  private lastWarning = -Infinity;

  constructor(
    private readonly durability: ResolvedDurability,
    private readonly router: WaitRouter,
    private readonly logger: TimeoutLogger | null,
  ) {}

  /** Taken just before a write to `key` goes out. */
  track(key: string): WriteTicket {
    const connection = this.router.connectionFor(key);
    return { key, connection, epoch: connection?.epoch() ?? 0 };
  }

  /**
   * Resolves once the write of `ticket` (acknowledged by Redis) reached the replicas; rejects
   * with `DurabilityUnconfirmedError` under `refuse` when it did not in time.
   */
  async confirm(operation: string, ticket: WriteTicket): Promise<void> {
    const connection = this.router.connectionFor(ticket.key);
    let confirmed = 0;
    // A key that moved to another master between the write and now (a failover, a MOVED retry):
    // a WAIT on the new master's connection says nothing about the write.
    if (connection && (ticket.connection === undefined || ticket.connection === connection)) {
      const epoch = ticket.connection ? ticket.epoch : connection.epoch();
      confirmed = await this.groupOf(connection).next().catch(() => 0);
      // The WAIT went out on a new connection (a reconnect): it says nothing about this write.
      if (connection.epoch() !== epoch) confirmed = 0;
    }
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

  private groupOf(connection: WaitConnection): WaitGroup {
    let group = this.groups.get(connection);
    if (!group) {
      group = new WaitGroup(connection, this.durability);
      this.groups.set(connection, group);
    }
    return group;
  }
}
