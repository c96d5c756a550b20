import type { CancelResult, ConnectionOptions, ScheduleOutcome, TimeoutLogger } from '../types.js';
import { FEW_BUCKETS } from '../commands/index.js';
import { isCluster, openConnection, type RedisClient } from './redis-connection.js';
import { RedisCalls } from './redis-calls.js';
import { RedisSlotMigration } from './redis-slot-migration.js';
import { RedisDeliveries } from './redis-deliveries.js';
import { RedisOperatorCalls } from './redis-operator-calls.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { TimeoutKeys } from './timeout-keys.js';
import { StoreClosedError } from './store-closed.error.js';
import { RedisWakeUps } from './redis-wake-ups.js';
import { adviseOnPersistence } from './persistence-advice.js';
import { ClaimHints } from './claim-hints.js';
import { bucketKeys } from './bucket-keys.js';
import { ScheduleCoalescer, type PendingSchedule } from './schedule-coalescer.js';
import { ENGINE_DEFAULTS } from '../validation/options.js';
import {
  clusterWaitRouter,
  ReplicationBarrier,
  replicaWait,
  resolveDurability,
  singleWaitRouter,
  waitConnection,
  type DurabilityOptions,
} from './replication-barrier.js';
import type { SlotRef, StoredTimeout, StoreScheduleEntry, StoreScheduleItem, StoreScheduleOutcome, StoreTopic, TimeoutStore } from './timeout-store.js';
import type { AckEntry, AckResult, ClaimResult, FailOutcome, LeaseExpiryPolicy, LeaseRenewal, ReleaseResult, RenewResult, StoreFailure } from './timeout-store.js';
import type { CopiedEntry, ExportedEntries, MovedEntry, SlotMarker, SlotStats, StoredDeadLetter, StoredPendingEntry, TopicLayout } from './timeout-store.js';
import { CANCEL_RESULTS, decodeStored, mapCode, refusedItem, SCHEDULE_OUTCOMES, scheduleArgs, unexpected, type ScriptArg } from './redis-replies.js';

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

/** Most timeouts one schedule script call carries (calls of one tick for one slot are coalesced). */
const SCHEDULE_BATCH = 200;

const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;

/**
 * The Redis implementation of the storage port: one set of keys per slot of a topic, all under
 * the slot's hash tag, changed only by the Lua scripts in `commands/` (layout: docs/REDIS-LAYOUT.md).
 * Works on one server and on a Redis Cluster.
 *
 * Interactive calls fail with `RedisUnavailableError` after about `commandTimeoutMs` while Redis
 * is down or stalled; worker calls (`claim`, `ack`, `ackMany`, `fail`, `release`) wait for the
 * connection to come back, which it does by itself (owned connections reconnect without limit).
 */
export class RedisTimeoutStore implements TimeoutStore {
  /** The key builder of this store (prefix included). */
  readonly keys: TimeoutKeys;
  private readonly client: RedisClient;
  /** Script and interactive calls: deadlines, failover retries and error mapping (store/redis-calls.ts). */
  private readonly calls: RedisCalls;
  /** Confirms schedules and cancels on the replicas (`durability`); undefined when the option is off. */
  private readonly barrier: ReplicationBarrier | undefined;
  private readonly commandTimeoutMs: number;
  private readonly logger: TimeoutLogger | null;
  private readonly schedules = new ScheduleCoalescer((slot, entries) => this.runScheduleBatch(slot, entries), SCHEDULE_BATCH);
  private readonly claimHints = new ClaimHints();
  private readonly migration: RedisSlotMigration;
  private readonly deliveries: RedisDeliveries;
  private readonly operator: RedisOperatorCalls;
  private readonly wakeUps: RedisWakeUps;
  private initialised: Promise<void> | undefined;

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
    this.migration = new RedisSlotMigration(this.keys, this.calls);
    this.deliveries = new RedisDeliveries(this.keys, this.calls, this.claimHints);
    this.operator = new RedisOperatorCalls(this.keys, this.calls);
    this.wakeUps = new RedisWakeUps(this.client, this.keys, commandTimeoutMs, this.logger);
    this.barrier = this.replicationBarrier(options.durability);
  }

  /** The connection in use (given or opened). */
  get connection(): RedisClient {
    return this.client;
  }

  async init(_topics: readonly StoreTopic[] = []): Promise<void> {
    this.initialised ??= this.checkPersistence().catch((error: unknown) => {
      this.initialised = undefined;
      throw error;
    });
    return this.initialised;
  }

  async now(): Promise<number> {
    const [seconds, micros] = await this.calls.interactive('now', () => this.client.time());
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  /**
   * Schedules one timeout. Calls made in the same tick for the same slot travel as one script
   * call (up to `SCHEDULE_BATCH` each), which is what makes tens of thousands a second possible
   * from one process; each call still gets its own result, in order.
   */
  schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }> {
    if (this.calls.closed) return Promise.reject(new StoreClosedError(redisStoreMessages.closed()));
    return this.schedules.add(slot, id, entry);
  }

  /**
   * Schedules the items in one script call (however many: a call is never split), queued with the
   * slot's other schedules of this tick so that calls on one id keep their order.
   */
  async scheduleMany(slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(StoreScheduleOutcome | Error)[]> {
    if (items.length === 0) return [];
    this.calls.assertOpen();
    return this.schedules.addUnit(slot, items);
  }

  /** Cancels the ids in one script call (however many), after the slot's schedules of this tick. */
  async cancelMany(slot: SlotRef, ids: readonly string[]): Promise<(CancelResult | Error)[]> {
    if (ids.length === 0) return [];
    this.schedules.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const buckets = bucketKeys(ids, keys.buckets, 3);
    const scriptKeys = [keys.due, keys.lease, keys.layout, ...buckets.keys];
    const args: ScriptArg[] = [slot.slots ?? 0];
    ids.forEach((id, i) => args.push(id, buckets.keyIndex(i)));
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('cancelMany', buckets.few ? 'cancelManyFew' : 'cancelMany', scriptKeys, args);
    if (!Array.isArray(reply) || reply.length !== ids.length) throw unexpected('cancelMany', reply);
    if (ticket && reply.some((code) => CANCEL_RESULTS[code as number] === 'cancelled')) await this.barrier?.confirm('cancelMany', ticket);
    return reply.map((code: unknown) => refusedItem(code) ?? mapCode(CANCEL_RESULTS, code, 'cancelMany'));
  }

  private async runScheduleBatch(slot: SlotRef, entries: readonly PendingSchedule[]): Promise<void> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    // Each entry names its data bucket by its index in KEYS (see bucket-keys.ts).
    const buckets = bucketKeys(entries.map(({ id }) => id), keys.buckets, 4);
    const script = buckets.few ? 'scheduleFew' : 'schedule';
    const scriptKeys = [keys.due, keys.lease, keys.dead, keys.layout, ...buckets.keys];
    const args: ScriptArg[] = [this.keys.wakeChannel(slot.topic), slot.slot, slot.slots ?? 0, ...scheduleArgs(entries, buckets.keyIndex)];
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('schedule', script, scriptKeys, args);
    if (!Array.isArray(reply) || reply.length !== entries.length * 2) throw unexpected('schedule', reply);
    // A timeout scheduled here may be the slot's next due one: let the next claim pass its bucket
    // too while there is room (a claim that lacks a bucket is only made again with every bucket).
    this.claimHints.widen(slot, buckets.distinct, FEW_BUCKETS);
    if (ticket) await this.barrier?.confirm('schedule', ticket);
    entries.forEach((pending, i) => {
      const code = reply[2 * i];
      // An entry a slot migration refused (its bucket is being moved, or was moved): that call is routed again.
      const refused = refusedItem(code);
      if (refused) pending.reject(refused);
      else pending.resolve({ outcome: mapCode(SCHEDULE_OUTCOMES, code, 'schedule'), dueAt: Number(reply[2 * i + 1]) });
    });
  }

  async cancel(slot: SlotRef, id: string): Promise<CancelResult> {
    this.schedules.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const dataKey = this.keys.dataKey(slot.topic, slot.slot, id);
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('cancel', 'cancel', [keys.due, keys.lease, dataKey, keys.layout], [id, slot.slots ?? 0]);
    const result = mapCode(CANCEL_RESULTS, reply, 'cancel');
    if (result === 'cancelled' && ticket) await this.barrier?.confirm('cancel', ticket);
    return result;
  }

  async get(slot: SlotRef, id: string): Promise<StoredTimeout | null> {
    this.schedules.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const dataKey = this.keys.dataKey(slot.topic, slot.slot, id);
    const reply = await this.calls.script('get', 'get', [keys.due, keys.lease, keys.dead, dataKey, keys.layout], [id, slot.slots ?? 0]);
    return decodeStored(id, reply);
  }

  /** Worker call: see store/redis-deliveries.ts (claims pass only the buckets the previous claim hinted at). */
  claim(slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy): Promise<ClaimResult> {
    return this.deliveries.claim(slot, limit, leaseMs, expiry);
  }

  ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult> {
    return this.deliveries.ack(slot, id, fencingToken);
  }

  /** Worker call: see store/redis-deliveries.ts (only the buckets of the renewed ids when they are few). */
  renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> {
    return this.deliveries.renewLeases(slot, entries);
  }

  /** Worker call: see store/redis-deliveries.ts (only the buckets of the acked ids when they are few). */
  ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> {
    return this.deliveries.ackMany(slot, entries);
  }

  fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome> {
    return this.deliveries.fail(slot, id, fencingToken, failure);
  }

  release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult> {
    return this.deliveries.release(slot, entries);
  }

  stats(slot: SlotRef): Promise<SlotStats> {
    return this.operator.stats(slot);
  }

  listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]> {
    return this.operator.listPending(slot, offset, limit);
  }

  listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]> {
    return this.operator.listDead(slot, offset, limit);
  }

  replayDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.schedules.flushSlot(slot);
    return this.operator.replayDead(slot, ids);
  }

  purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.schedules.flushSlot(slot);
    return this.operator.purgeDead(slot, ids);
  }

  // Slot-count changes: the topics registry, layout markers and moving entries (store/redis-slot-migration.ts).

  readLayout(topic: string): Promise<TopicLayout | null> {
    return this.migration.readLayout(topic);
  }

  claimLayout(topic: string, slots: number): Promise<TopicLayout> {
    return this.migration.claimLayout(topic, slots);
  }

  beginMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    return this.migration.beginMigration(topic, from, to);
  }

  finishMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    return this.migration.finishMigration(topic, from, to);
  }

  markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void> {
    return this.migration.markSlot(slot, marker);
  }

  bucketIds(slot: SlotRef, bucket: number): Promise<string[]> {
    return this.migration.bucketIds(slot, bucket);
  }

  exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries> {
    return this.migration.exportEntries(slot, ids);
  }

  importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]> {
    return this.migration.importEntries(slot, entries, counter);
  }

  dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]> {
    return this.migration.dropEntries(slot, entries);
  }

  unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number> {
    return this.migration.unimportEntries(slot, entries);
  }

  /**
   * Subscribes to the wake-up channels of `topics` on a connection of its own (see
   * `WakeSubscriber`): on a cluster, PUBLISH from a script reaches every node, so one connection to
   * any node hears every slot. `onResubscribed` is called whenever the subscription is back after
   * a loss (reconnect, restart of Redis, move to another cluster node).
   */
  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
    onLayout?: (topic: string) => void,
  ): Promise<() => Promise<void>> {
    this.calls.assertOpen();
    // A cluster subscriber connects to a node the cluster client knows: let it learn them first.
    if (isCluster(this.client) && this.client.nodes('master').length === 0) await this.ping();
    return this.wakeUps.subscribe(topics, onWake, onResubscribed, onLayout);
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
    await adviseOnPersistence(this.client, this.calls, this.logger);
  }
}
