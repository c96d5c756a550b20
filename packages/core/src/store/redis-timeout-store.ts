import type { ConnectionOptions, TimeoutLogger } from '../types.js';
import { assertNotClusterNode, isCluster, openConnection, type RedisClient } from './redis-connection.js';
import { RedisCalls } from './redis-calls.js';
import { RedisSlotMigration } from './redis-slot-migration.js';
import { RedisDeliveries } from './redis-deliveries.js';
import { RedisReads } from './redis-reads.js';
import { RedisWrites } from './redis-writes.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { TimeoutKeys } from './timeout-keys.js';
import { RedisWakeUps } from './redis-wake-ups.js';
import { adviseOnPersistence } from './persistence-advice.js';
import { ClaimHints } from './claim-hints.js';
import { ENGINE_DEFAULTS } from '../validation/defaults.js';
import {
  clusterWaitRouter,
  ReplicationBarrier,
  replicaWait,
  resolveDurability,
  singleWaitRouter,
  waitConnection,
  type DurabilityOptions,
} from './replication-barrier.js';
import type { Deliveries, LayoutMigration, ScheduleWrites, SlotRef, StoreReads, StoreTopic, TimeoutStore } from './timeout-store.js';

/** Options of `new RedisTimeoutStore(...)`. */
export interface RedisTimeoutStoreOptions {
  /** How to reach Redis (see `ConnectionOptions`). Default: `127.0.0.1:6379`. */
  connection?: ConnectionOptions;
  /** First segment of every key and channel. Default `dt`. */
  prefix?: string;
  /** How long interactive calls (`schedule`, `cancel`, `get`, stats, dead letters, `ping`) wait for Redis. Default 1,000 ms. */
  commandTimeoutMs?: number;
  /** Where warnings go (e.g. no persistence). `null` or omitted: silent. */
  logger?: TimeoutLogger | null;
  /**
   * Replicated durability, opt-in: `schedule` and `cancel` resolve only once `WAIT` confirms the
   * write reached `replicas` replicas (on a Cluster: the replicas of the master that took it). Off by default.
   */
  durability?: DurabilityOptions;
}

const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;

/**
 * The Redis implementation of the storage port: one set of keys per slot of a topic, all under
 * the slot's hash tag, changed only by the Lua scripts in `commands/` (layout: docs/REDIS-LAYOUT.md).
 * Works on one server and on a Redis Cluster.
 *
 * Interactive calls fail with `RedisUnavailableError` after about `commandTimeoutMs` while Redis
 * is down or stalled; worker calls (`deliveries`: `claim`, `ack`, `ackMany`, `fail`, `release`) wait for the
 * connection to come back, which it does by itself (owned connections reconnect without limit).
 */
export class RedisTimeoutStore implements TimeoutStore {
  /** The key builder of this store (prefix included). */
  readonly keys: TimeoutKeys;
  private readonly client: RedisClient;
  /** Scheduling writes, coalesced per slot and tick (store/redis-writes.ts). */
  readonly writes: ScheduleWrites;
  /** Worker calls (store/redis-deliveries.ts): claims pass only the buckets the previous claim hinted at. */
  readonly deliveries: Deliveries;
  /** Reads and dead-letter operations (store/redis-reads.ts). */
  readonly reads: StoreReads;
  /** Slot-count changes: the topics registry, layout markers and moving entries (store/redis-slot-migration.ts). */
  readonly layout: LayoutMigration;
  /** Script and interactive calls: deadlines, failover retries and error mapping (store/redis-calls.ts). */
  private readonly calls: RedisCalls;
  private readonly commandTimeoutMs: number;
  private readonly logger: TimeoutLogger | null;
  private readonly wakeUps: RedisWakeUps;
  /** The persistence check of `init`, made once (again after it failed). */
  private persistenceChecked: Promise<void> | undefined;

  constructor(options: RedisTimeoutStoreOptions = {}) {
    const prefix = options.prefix ?? 'dt';
    if (!PREFIX_PATTERN.test(prefix)) throw new InvalidStoreOptionError(redisStoreMessages.invalidPrefix(prefix));
    const commandTimeoutMs = options.commandTimeoutMs ?? ENGINE_DEFAULTS.commandTimeoutMs;
    if (!Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0) {
      throw new InvalidStoreOptionError(`Invalid commandTimeoutMs ${commandTimeoutMs}: use a positive number of milliseconds.`);
    }
    this.keys = new TimeoutKeys(prefix);
    this.commandTimeoutMs = commandTimeoutMs;
    this.logger = options.logger ?? null;
    const opened = openConnection(options.connection);
    this.client = opened.client;
    this.calls = new RedisCalls(opened, commandTimeoutMs, this.logger);
    const claimHints = new ClaimHints();
    const writes = new RedisWrites(this.keys, this.calls, claimHints, this.replicationBarrier(options.durability));
    this.writes = writes;
    this.deliveries = new RedisDeliveries(this.keys, this.calls, claimHints, !isCluster(this.client));
    this.reads = new RedisReads(this.keys, this.calls, writes);
    this.layout = new RedisSlotMigration(this.keys, this.calls);
    this.wakeUps = new RedisWakeUps(this.client, this.keys, commandTimeoutMs, this.logger);
  }

  /** The connection in use (given or opened). */
  get connection(): RedisClient {
    return this.client;
  }

  async init(_topics: readonly StoreTopic[] = []): Promise<void> {
    this.persistenceChecked ??= this.checkPersistence().catch((error: unknown) => {
      this.persistenceChecked = undefined;
      throw error;
    });
    return this.persistenceChecked;
  }

  async now(): Promise<number> {
    const [seconds, micros] = await this.calls.interactive('now', () => this.client.time());
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  /**
   * Subscribes to the wake-up channels of `topics` on a connection of its own (see
   * `WakeSubscriber`): on a cluster, PUBLISH from a script reaches every node, so one connection to
   * any node hears every slot. `onResubscribed` is called whenever the subscription is back after
   * a loss (reconnect, restart of Redis, move to another cluster node). `onCancel` hears the
   * cancels of firing timeouts (see `TimeoutStore.subscribe`).
   */
  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
    onLayout?: (topic: string) => void,
    onCancel?: (topic: string, id: string, fencingToken: number) => void,
  ): Promise<() => Promise<void>> {
    this.calls.assertOpen();
    // A cluster subscriber connects to a node the cluster client knows: let it learn them first.
    if (isCluster(this.client) && this.client.nodes('master').length === 0) await this.ping();
    return this.wakeUps.subscribe(topics, onWake, onResubscribed, onLayout, onCancel);
  }

  async ping(): Promise<number> {
    const started = performance.now();
    await this.calls.interactive('ping', () => this.client.ping());
    return performance.now() - started;
  }

  /**
   * Closes the wake-up subscriptions and the connection this store opened (never one it was
   * given). A clean QUIT is sent only when Redis answers within `quitWithinMs` (default
   * `commandTimeoutMs`; 0 closes at once). Idempotent.
   */
  async close(quitWithinMs = this.commandTimeoutMs): Promise<void> {
    if (this.calls.closed) return;
    await Promise.all([this.calls.close(quitWithinMs), this.wakeUps.close(quitWithinMs)]);
  }

  /** The `durability` barrier (store/replication-barrier.ts): WAIT on the connection the writes went out on (on a Cluster, the master's). */
  private replicationBarrier(options: DurabilityOptions | undefined): ReplicationBarrier | undefined {
    const durability = resolveDurability(options);
    if (!durability) return undefined;
    const send = replicaWait(durability.aof, this.logger);
    const router = isCluster(this.client)
      ? clusterWaitRouter(this.client, (node) => waitConnection(node, this.commandTimeoutMs, send))
      : singleWaitRouter(waitConnection(this.client, this.commandTimeoutMs, send));
    return new ReplicationBarrier(durability, router, this.logger);
  }

  /**
   * Advice, logged once per store: warns when a master keeps no append-only file (a crash loses
   * what was scheduled since the last snapshot) or may evict keys that have no TTL (an `allkeys-*`
   * policy could drop timeouts or a fencing counter). At most one warning of each kind (store/persistence-advice.ts).
   */
  private async checkPersistence(): Promise<void> {
    await this.ping();
    await assertNotClusterNode(this.client, (section) => this.calls.interactive('init', () => this.client.info(section)));
    await adviseOnPersistence(this.client, this.calls, this.logger);
  }
}
