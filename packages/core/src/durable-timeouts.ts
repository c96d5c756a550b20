import { RedisTimeoutStore } from './store/redis-timeout-store.js';
import { slotOf } from './store/slot-of.js';
import type { SlotRef, StoreScheduleEntry, StoreTopic, TimeoutStore } from './store/timeout-store.js';
import type {
  CancelResult,
  DeadLetter,
  DurableTimeoutsEvents,
  DurableTimeoutsOptions,
  DurableTimeoutsSettings,
  HealthSnapshot,
  JsonValue,
  ResolvedTopicOptions,
  CancelManyResult,
  ScheduleManyItem,
  ScheduleManyResult,
  ScheduleOptions,
  ScheduleOutcome,
  ScheduleResult,
  StopOptions,
  TimeoutHandler,
  TimeoutInfo,
  TimeoutInterceptor,
  TopicSlotStats,
  TopicStats,
} from './types.js';
import type { TopicName, TopicPayload } from './typed-topics.js';
import { DuplicateHandlerError } from './errors/duplicate-handler.error.js';
import { InvalidDelayError } from './errors/invalid-delay.error.js';
import { InvalidOptionsError } from './errors/invalid-options.error.js';
import { TimeoutsStoppedError } from './errors/timeouts-stopped.error.js';
import { UnknownTopicError } from './errors/unknown-topic.error.js';
import { errorMessages } from './errors/errors.messages.js';
import { EventHub } from './engine/event-hub.js';
import type { EngineContext } from './engine/engine-context.js';
import { engineMessages } from './engine/engine.messages.js';
import { ServerClock } from './engine/server-clock.js';
import { toError } from './engine/to-error.js';
import { TopicWorker } from './engine/topic-worker.js';
import { isRoutingError, TopicLayouts } from './engine/topic-layouts.js';
import { splitCarried, withCarried } from './engine/carried-context.js';
import { migrateSlots, type SlotMigrationOptions, type SlotMigrationReport } from './engine/slot-migration.js';
import { integerIn, resolveDrainMs, resolveOptions, type ResolvedOptions } from './validation/options.js';
import { serializePayload } from './validation/payload.js';
import { parseStoredPayload } from './validation/safe-json.js';
import { assertTimeoutId } from './validation/timeout-id.js';
import { validateTiming } from './validation/timing.js';
import { validateIfExists } from './validation/if-exists.js';
import { assertBulkItems } from './validation/bulk-items.js';
import { runPerSlot } from './engine/bulk-calls.js';
import { DurableTimeoutError } from './errors/durable-timeout.error.js';
import { describeType } from './validation/describe-type.js';
import { settledWithin } from './support/settled-within.js';
import { FailoverReporting } from './engine/failover-reporting.js';

type Lifecycle = 'created' | 'running' | 'stopping' | 'stopped';

/** Largest page `listDead` and `listPending` return, and deepest they page (offset + limit). */
const MAX_PAGE = 1_000;
const MAX_PAGE_DEPTH = 10_000;

/**
 * Durable timeouts kept in Redis: schedule "do X if Y has not happened within N ms", and have it
 * fire once per due time across any number of instances, after restarts and crashes.
 *
 * ```ts
 * const timeouts = new DurableTimeouts({ connection: 'redis://localhost:6379', topics: { payment: {} } });
 * timeouts.handle('payment', async (event) => markPaymentTimedOut(event.id, event.fencingToken));
 * await timeouts.start();
 * await timeouts.schedule('payment', 'order-123', { delayMs: 60_000, payload: { amount: 42 } });
 * await timeouts.cancel('payment', 'order-123'); // the customer paid
 * await timeouts.stop({ drainMs: 10_000 });
 * ```
 *
 * Delivery is at least once: a handler may run again for the same due time when its worker died
 * or ran past `leaseMs`. Make handlers idempotent (guard on the record's status, or on
 * `event.fencingToken`) for an exactly-once effect. See docs/ENGINE.md.
 */
export class DurableTimeouts<TTopics = any> {
  private readonly options: ResolvedOptions;
  private timeoutStore: TimeoutStore;
  private readonly ownsStore: boolean;
  private readonly events: EventHub<DurableTimeoutsEvents>;
  private readonly clock = new ServerClock();
  private readonly context: EngineContext;
  private readonly workers = new Map<string, TopicWorker>();
  private readonly layouts: TopicLayouts;
  private readonly interceptors: TimeoutInterceptor[] = [];
  private layoutTimer: NodeJS.Timeout | undefined;
  private readonly resolvedSettings: DurableTimeoutsSettings;
  private readonly unsubscribers: (() => Promise<void>)[] = [];
  private lifecycle: Lifecycle = 'created';
  private initialised = false;
  private initPromise: Promise<void> | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private storeOpen = true;
  private outage = false;
  private readonly failover = new FailoverReporting();

  constructor(options: DurableTimeoutsOptions<TTopics>) {
    this.options = resolveOptions(options as DurableTimeoutsOptions);
    const { logger } = this.options;
    const { prefix, topics, sweepIntervalMs, commandTimeoutMs, drainMs } = this.options;
    this.resolvedSettings = Object.freeze({ prefix, topics: Object.freeze(Object.fromEntries(topics)), sweepIntervalMs, commandTimeoutMs, drainMs });
    this.ownsStore = this.options.store === undefined;
    this.timeoutStore = this.options.store ?? this.openStore();
    const configuredSlots = new Map([...topics].map(([topic, topicOptions]) => [topic, topicOptions.slots]));
    // The store may be replaced after a failed start: the layouts always use the current one.
    this.layouts = new TopicLayouts(() => this.timeoutStore, configuredSlots, commandTimeoutMs);
    this.layouts.onChange((topic) => this.workers.get(topic)?.resize());
    this.events = new EventHub<DurableTimeoutsEvents>((event, error) => {
      logger?.error(engineMessages.listenerThrew(String(event), toError(error).message), { event });
    });
    const engine = this;
    this.context = {
      get store() {
        return engine.timeoutStore;
      },
      events: this.events,
      logger,
      clock: this.clock,
      layouts: this.layouts,
      interceptors: this.interceptors,
      sweepIntervalMs: this.options.sweepIntervalMs,
      get storeOpen() {
        return engine.storeOpen;
      },
      // Calls cut off by closing the store at shutdown fail as expected: not an outage.
      reportError: (error, operation, topic) => {
        if (this.storeOpen) this.reportError(error, operation, topic);
      },
      reportHealthy: () => {
        this.failover.healthy();
        if (!this.outage) return;
        this.outage = false;
        logger?.log(engineMessages.storeRecovered());
      },
    };
  }

  /** Registers the handler of a topic (one per topic per instance). Call before `start`; later works too. */
  handle<K extends TopicName<TTopics>>(topic: K, handler: TimeoutHandler<TopicPayload<TTopics, K>>): this {
    this.assertUsable('handle');
    const topicOptions = this.topicOptions(topic);
    if (typeof handler !== 'function') throw new InvalidOptionsError(errorMessages.handlerNotFunction(topic, describeType(handler)));
    if (this.workers.has(topic)) throw new DuplicateHandlerError(errorMessages.duplicateHandler(topic));
    const worker = new TopicWorker(this.context, topic, topicOptions, handler as TimeoutHandler<unknown>);
    this.workers.set(topic, worker);
    if (this.lifecycle === 'running') {
      const startWorker = () => {
        if (this.lifecycle === 'running') worker.start();
      };
      this.layouts.ready(topic, true).then(
        () =>
          this.subscribe([topic]).then(startWorker, (error: unknown) => {
            this.reportError(error, 'subscribe', topic);
            // Without wake-ups the sweep still fires everything, only later.
            startWorker();
          }),
        // Its slot count could not be recorded (Redis away, or another count recorded): not started.
        (error: unknown) => this.reportError(error, 'start', topic),
      );
    }
    return this;
  }

  /**
   * Checks the store (and warns when Redis keeps no append-only file), subscribes to wake-ups and
   * starts the slot pollers of every topic that has a handler. Idempotent. Scheduling works
   * without `start`: an instance that only schedules never needs it. When it fails (Redis
   * unreachable), the connections it opened are closed, so nothing keeps the process alive, and
   * it may be called again.
   */
  async start(): Promise<void> {
    this.assertUsable('start');
    this.startPromise ??= this.startPollers().catch((error: unknown) => {
      this.startPromise = undefined;
      throw error;
    });
    return this.startPromise;
  }

  /**
   * Schedules (upserts) the timeout `id` of `topic`: by default the last call for an id wins for
   * due time and payload; `ifExists` (`keep`, `earlier`, `later`) may leave an existing pending or
   * firing timeout as it is instead (outcome `kept` / `kept_firing`, no `scheduled` event; see
   * `ScheduleIfExists`). `delayMs` counts on the store clock (Redis `TIME`), `at` is absolute. Bad input
   * throws a typed error and stores nothing; while Redis is unreachable it rejects with
   * `RedisUnavailableError` after about `commandTimeoutMs` (retrying is safe: it is an upsert).
   */
  async schedule<K extends TopicName<TTopics>>(topic: K, id: string, options: ScheduleOptions<TopicPayload<TTopics, K>>): Promise<ScheduleResult> {
    this.assertUsable('schedule');
    const topicOptions = this.topicOptions(topic);
    const entry = this.scheduleEntry(topic, topicOptions.maxPayloadBytes, id, options);
    if (!this.initialised) await this.init();
    await this.layouts.ready(topic, true);
    const { outcome, dueAt } = await this.layouts.onId(topic, id, (ref) => this.timeoutStore.schedule(ref, id, entry));
    this.emitScheduled(topic, id, dueAt, outcome);
    return { topic, id, dueAt, outcome };
  }

  /**
   * Schedules many timeouts of one topic (up to 10,000 a call), each as `schedule` would with its
   * own timing, payload and `ifExists`. Every item is validated first: a bad one gets its typed
   * error in its result and nothing of it is stored; the others are grouped by slot into one
   * atomic script call per slot, pipelined across slots. One result per item, in the order given:
   * `{ ok: true, ...ScheduleResult }`, or `{ ok: false, error }` (bad input, or the slot's call
   * failed: `RedisUnavailableError`, after which that slot's items may or may not be stored,
   * exactly as for a `schedule` that timed out). Items of one slot are applied in the order given.
   */
  async scheduleMany<K extends TopicName<TTopics>>(topic: K, items: readonly ScheduleManyItem<TopicPayload<TTopics, K>>[]): Promise<ScheduleManyResult[]> {
    this.assertUsable('scheduleMany');
    const topicOptions = this.topicOptions(topic);
    assertBulkItems('scheduleMany', items);
    const results: ScheduleManyResult[] = new Array(items.length);
    const valid: { id: string; entry: StoreScheduleEntry; index: number }[] = [];
    items.forEach((item, index) => {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
      try {
        if (typeof item !== 'object' || item === null) throw new InvalidOptionsError(errorMessages.bulkItemNotObject('scheduleMany', index));
        assertTimeoutId(id);
        valid.push({ id: id as string, entry: this.scheduleEntry(topic, topicOptions.maxPayloadBytes, id as string, item), index });
      } catch (error) {
        if (!(error instanceof DurableTimeoutError)) throw error;
        results[index] = { ok: false, topic, id: typeof id === 'string' ? id : String(id), error };
      }
    });
    if (valid.length === 0) return results;
    if (!this.initialised) await this.init();
    await this.layouts.ready(topic, true);
    const outcomes = await runPerSlot(
      this.layouts,
      topic,
      valid,
      (ref, chosen) => this.timeoutStore.scheduleMany(ref, chosen),
      (ref, item) => this.timeoutStore.schedule(ref, item.id, item.entry),
    );
    valid.forEach(({ id, index }, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        results[index] = { ok: false, topic, id, error: outcome.error };
        return;
      }
      this.emitScheduled(topic, id, outcome.value.dueAt, outcome.value.outcome);
      results[index] = { ok: true, topic, id, dueAt: outcome.value.dueAt, outcome: outcome.value.outcome };
    });
    return results;
  }

  /**
   * Cancels many timeouts of one topic (up to 10,000 a call), each as `cancel` would: one atomic
   * script call per slot, pipelined across slots. One result per id, in the order given:
   * `{ ok: true, result }` (`cancelled`, `firing`, `not_found`) or `{ ok: false, error }` (an
   * invalid id, nothing sent for it; or the slot's call failed: `RedisUnavailableError`).
   */
  async cancelMany(topic: TopicName<TTopics>, ids: readonly string[]): Promise<CancelManyResult[]> {
    this.assertUsable('cancelMany');
    this.topicOptions(topic);
    assertBulkItems('cancelMany', ids);
    const results: CancelManyResult[] = new Array(ids.length);
    const valid: { id: string; index: number }[] = [];
    ids.forEach((id, index) => {
      try {
        assertTimeoutId(id);
        valid.push({ id, index });
      } catch (error) {
        if (!(error instanceof DurableTimeoutError)) throw error;
        results[index] = { ok: false, topic, id: String(id), error };
      }
    });
    if (valid.length === 0) return results;
    if (!this.initialised) await this.init();
    await this.layouts.ready(topic, false);
    const outcomes = await runPerSlot(
      this.layouts,
      topic,
      valid,
      (ref, chosen) => this.timeoutStore.cancelMany(ref, chosen.map(({ id }) => id)),
      (ref, item) => this.timeoutStore.cancel(ref, item.id),
    );
    valid.forEach(({ id, index }, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        results[index] = { ok: false, topic, id, error: outcome.error };
        return;
      }
      if (outcome.value === 'cancelled') this.events.emit('cancelled', { topic, id });
      results[index] = { ok: true, topic, id, result: outcome.value };
    });
    return results;
  }

  /** Validates the options of one schedule and builds what the store stores (bad input throws a typed error). */
  private scheduleEntry(topic: string, maxPayloadBytes: number, id: unknown, options: unknown): StoreScheduleEntry {
    assertTimeoutId(id);
    if (typeof options !== 'object' || options === null) throw new InvalidDelayError(errorMessages.timingMissing());
    const timing = validateTiming(options as { delayMs?: unknown; at?: unknown }, Date.now());
    const ifExists = validateIfExists((options as { ifExists?: unknown }).ifExists);
    const serialized = 'payload' in options ? serializePayload((options as { payload?: unknown }).payload, topic, maxPayloadBytes) : 'null';
    const payload = this.interceptors.length === 0 ? serialized : withCarried(serialized, this.carriedFor(topic, id as string));
    const entry: StoreScheduleEntry = timing.at === undefined ? { delayMs: timing.delayMs, payload } : { at: timing.at, payload };
    if (ifExists !== undefined) entry.ifExists = ifExists;
    return entry;
  }

  /** The `scheduled` event, for a call that stored something (not for a kept one). */
  private emitScheduled(topic: string, id: string, dueAt: number, outcome: ScheduleOutcome): void {
    if (outcome !== 'kept' && outcome !== 'kept_firing' && this.events.has('scheduled')) this.events.emit('scheduled', { topic, id, dueAt, outcome });
  }

  /**
   * Cancels a pending timeout: `cancelled` (it will never fire), `firing` (a handler holds it now;
   * nothing changed, it runs to the end), `not_found`.
   */
  async cancel(topic: TopicName<TTopics>, id: string): Promise<CancelResult> {
    this.assertUsable('cancel');
    this.topicOptions(topic);
    assertTimeoutId(id);
    if (!this.initialised) await this.init();
    await this.layouts.ready(topic, false);
    const result = await this.layouts.onId(topic, id, (ref) => this.timeoutStore.cancel(ref, id));
    if (result === 'cancelled') this.events.emit('cancelled', { topic, id });
    return result;
  }

  /** Reads a timeout in any state (pending, firing, dead), or null. A stored payload that is not JSON reads as null. */
  async get<K extends TopicName<TTopics>>(topic: K, id: string): Promise<TimeoutInfo<TopicPayload<TTopics, K>> | null> {
    this.assertUsable('get');
    this.topicOptions(topic);
    assertTimeoutId(id);
    if (!this.initialised) await this.init();
    await this.layouts.ready(topic, false);
    const stored = await this.layouts.onId(topic, id, (ref) => this.timeoutStore.get(ref, id));
    if (stored === null) return null;
    const info: TimeoutInfo<TopicPayload<TTopics, K>> = {
      topic,
      id,
      state: stored.state,
      dueAt: stored.dueAt,
      scheduledAt: stored.scheduledAt,
      attempt: stored.attempt,
      payload: readPayload(stored.payload) as TopicPayload<TTopics, K>,
    };
    if (stored.leaseExpiresAt !== undefined) info.leaseExpiresAt = stored.leaseExpiresAt;
    if (stored.lastError !== undefined) info.lastError = stored.lastError;
    return info;
  }

  /** Counts over all slots of a topic, and the age of its oldest overdue pending timeout. */
  async stats(topic: TopicName<TTopics>): Promise<TopicStats> {
    this.assertUsable('stats');
    this.topicOptions(topic);
    if (!this.initialised) await this.init();
    const slots = await Promise.all(this.layouts.slotRefs(topic).map((ref) => this.timeoutStore.stats(ref)));
    const totals: TopicStats = { topic, pending: 0, firing: 0, dead: 0, oldestOverdueMs: 0 };
    for (const slot of slots) {
      totals.pending += slot.pending;
      totals.firing += slot.firing;
      totals.dead += slot.dead;
      if (slot.oldestOverdueDueAt !== null) totals.oldestOverdueMs = Math.max(totals.oldestOverdueMs, slot.now - slot.oldestOverdueDueAt);
    }
    return totals;
  }

  /** Dead letters of a topic, oldest first (default the first 100; `limit` up to 1,000, `offset + limit` up to 10,000). */
  async listDead<K extends TopicName<TTopics>>(topic: K, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter<TopicPayload<TTopics, K>>[]> {
    this.assertUsable('listDead');
    this.topicOptions(topic);
    const { offset, limit } = pageOf('listDead', options);
    if (!this.initialised) await this.init();
    // Every slot is sorted by time of death; the first offset + limit of each are enough to merge.
    const perSlot = await Promise.all(this.layouts.slotRefs(topic).map((ref) => this.timeoutStore.listDead(ref, 0, offset + limit)));
    return mergedPage(perSlot, (letter) => letter.deadAt, offset, limit).map((letter) => ({
      topic,
      id: letter.id,
      payload: readPayload(letter.payload) as TopicPayload<TTopics, K>,
      attempts: letter.attempts,
      lastError: letter.lastError,
      deadAt: letter.deadAt,
      scheduledAt: letter.scheduledAt,
    }));
  }

  /** Puts dead letters back as due now with attempts reset (all of the topic when `ids` is omitted). Returns how many. */
  async replayDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    this.assertUsable('replayDead');
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.timeoutStore.replayDead(ref, slotIds));
  }

  /** Deletes dead letters (all of the topic when `ids` is omitted). Returns how many. */
  async purgeDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    this.assertUsable('purgeDead');
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.timeoutStore.purgeDead(ref, slotIds));
  }

  /**
   * Changes the slot count of `topic` to `slots`: moves every stored timeout of the topic (pending,
   * firing and dead) to its slot of the new count, safely while instances configured with the old
   * or the new count run (calls on a slot being moved wait a moment; instances follow the move by
   * themselves). Resumable: call it again after it stopped half-way. Then deploy the new `slots`
   * option: from now on, an instance started with the old count refuses to start
   * (`TopicSlotsMismatchError`). See docs/ENGINE.md, "Changing a topic's slot count".
   */
  async migrateSlots(topic: TopicName<TTopics>, slots: number, options: SlotMigrationOptions = {}): Promise<SlotMigrationReport> {
    this.assertUsable('migrateSlots');
    this.topicOptions(topic);
    await this.timeoutStore.init([...this.options.topics].map(([name, topicOptions]) => ({ name, slots: topicOptions.slots })));
    const report = await migrateSlots(this.timeoutStore, topic, slots, options);
    await this.layouts.refresh(topic);
    return report;
  }

  /**
   * Claims and runs everything due now in every slot of every topic with a handler, and waits
   * for those handlers and their acks. For tests (with `MemoryTimeoutStore` and a manual clock,
   * see `createTestingTimeouts`) and scripts; it needs no `start`. Returns how many handlers ran.
   */
  async fireDue(): Promise<number> {
    this.assertUsable('fireDue');
    if (!this.initialised) await this.init();
    const counts = await Promise.all(
      [...this.workers.values()].flatMap((worker) => worker.pollers.map((poller) => worker.fireDueSlot(poller.ref.slot))),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Liveness figures for health checks; never throws. */
  async health(): Promise<HealthSnapshot> {
    let redisLatencyMs: number | null = null;
    if (this.storeOpen) {
      try {
        redisLatencyMs = await this.timeoutStore.ping();
      } catch {
        redisLatencyMs = null;
      }
    }
    const running = this.lifecycle === 'running';
    let maxPollerIdleMs: number | null = null;
    let inFlight = 0;
    const now = performance.now();
    for (const worker of this.workers.values()) {
      inFlight += worker.inFlight;
      if (running && worker.active) maxPollerIdleMs = Math.max(maxPollerIdleMs ?? 0, Math.round(worker.maxPollerIdleMs(now)));
    }
    if (running && maxPollerIdleMs === null) maxPollerIdleMs = 0;
    return { redisLatencyMs, running, maxPollerIdleMs, inFlight };
  }

  /**
   * Graceful shutdown: stops claiming, waits up to `drainMs` (default: the instance's, 10,000) for running
   * handlers, then aborts the `signal` of those still running and releases their timeouts as due
   * now (no attempt spent) so another instance fires them at once. Then unsubscribes and closes
   * the store if this instance opened it. Idempotent; every other call afterwards throws
   * `TimeoutsStoppedError`.
   *
   * It resolves within `drainMs` plus `commandTimeoutMs`, whatever handlers or Redis do: the drain
   * waits only for handlers, and the one round trip that follows (releases, acks, failure records)
   * gets `commandTimeoutMs`. What Redis has not answered by then is left to lease expiry: those
   * timeouts fire again after `leaseMs` (at least once, never lost).
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    const drainMs = resolveDrainMs(options?.drainMs, this.options.drainMs);
    this.stopPromise = this.shutdown(drainMs);
    return this.stopPromise;
  }

  /**
   * Adds a hook around scheduling and handling (see `TimeoutInterceptor`; tracing is one:
   * `registerTimeoutTracing` from `@durable-timeout/core/otel`). Returns a function that removes it.
   */
  intercept(interceptor: TimeoutInterceptor): () => void {
    this.interceptors.push(interceptor);
    return () => {
      const at = this.interceptors.indexOf(interceptor);
      if (at >= 0) this.interceptors.splice(at, 1);
    };
  }

  /** The text the interceptors keep with a timeout being scheduled (the last one that gives some wins). */
  private carriedFor(topic: string, id: string): string | undefined {
    let carried: string | undefined;
    for (const { scheduling } of this.interceptors) carried = scheduling?.(topic, id) ?? carried;
    return carried;
  }

  /** Subscribes to an engine event. Returns a function that unsubscribes. */
  on<K extends keyof DurableTimeoutsEvents>(event: K, listener: (data: DurableTimeoutsEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  /** The options this instance runs with, every default filled in. */
  get settings(): DurableTimeoutsSettings {
    return this.resolvedSettings;
  }

  /** The store in use (Redis or memory). */
  get store(): TimeoutStore {
    return this.timeoutStore;
  }

  /** The topics this instance was configured with, in the order given. */
  get topics(): TopicName<TTopics>[] {
    return [...this.options.topics.keys()] as TopicName<TTopics>[];
  }

  /** Counts of every slot of a topic (index = slot number): how evenly its timeouts spread. */
  async slotStats(topic: TopicName<TTopics>): Promise<TopicSlotStats[]> {
    this.assertUsable('slotStats');
    this.topicOptions(topic);
    if (!this.initialised) await this.init();
    const slots = await Promise.all(this.layouts.slotRefs(topic).map((ref) => this.timeoutStore.stats(ref)));
    return slots.map((stats, slot) => ({
      slot,
      pending: stats.pending,
      firing: stats.firing,
      dead: stats.dead,
      oldestOverdueMs: stats.oldestOverdueDueAt === null ? 0 : Math.max(0, stats.now - stats.oldestOverdueDueAt),
    }));
  }

  /**
   * The next pending timeouts of a topic, earliest due first across all its slots (default the
   * first 100; `limit` up to 1,000, `offset + limit` up to 10,000). Each slot is read by rank, never
   * whole, then each listed timeout like `get`: one that fired or was cancelled meanwhile is left
   * out, one claimed meanwhile shows as `firing`.
   */
  async listPending<K extends TopicName<TTopics>>(topic: K, options: { offset?: number; limit?: number } = {}): Promise<TimeoutInfo<TopicPayload<TTopics, K>>[]> {
    this.assertUsable('listPending');
    this.topicOptions(topic);
    const { offset, limit } = pageOf('listPending', options);
    if (!this.initialised) await this.init();
    // Every slot is sorted by due time; the first offset + limit of each are enough to merge.
    const perSlot = await Promise.all(this.layouts.slotRefs(topic).map((ref) => this.timeoutStore.listPending(ref, 0, offset + limit)));
    const page = mergedPage(perSlot, (entry) => entry.dueAt, offset, limit);
    const found = await Promise.all(page.map((entry) => this.get(topic, entry.id)));
    return found.filter((info): info is TimeoutInfo<TopicPayload<TTopics, K>> => info !== null && info.state !== 'dead');
  }

  private async startPollers(): Promise<void> {
    try {
      await this.init();
      const handled = [...this.workers.keys()];
      await Promise.all(handled.map((topic) => this.layouts.ready(topic, true)));
      if (handled.length > 0) await this.subscribe(handled);
    } catch (error) {
      // Stopped meanwhile: the stop closed the store under this start, and it has nothing left to do.
      if (this.stopPromise) return;
      await this.dropFailedStore();
      throw error;
    }
    if (this.stopPromise) return;
    this.lifecycle = 'running';
    for (const worker of this.workers.values()) {
      worker.resize();
      worker.start();
    }
    // A missed layout notice (a slot migration began or ended) is picked up within a sweep interval.
    this.layoutTimer = setInterval(() => {
      for (const topic of this.workers.keys()) this.layouts.refreshSoon(topic);
    }, this.options.sweepIntervalMs);
    this.layoutTimer.unref();
  }

  private openStore(): RedisTimeoutStore {
    return new RedisTimeoutStore({
      connection: this.options.connection,
      prefix: this.options.prefix,
      commandTimeoutMs: this.options.commandTimeoutMs,
      logger: this.options.logger,
      ...(this.options.durability ? { durability: this.options.durability } : {}),
    });
  }

  /**
   * After a failed start: closes the store this instance opened, whose connection would otherwise
   * keep reconnecting (and keep the process alive) for ever, and puts a new one in its place. The
   * new one connects on its first call, so calling `start` again (or `schedule`) works.
   */
  private async dropFailedStore(): Promise<void> {
    if (!this.ownsStore) return;
    const failed = this.timeoutStore as RedisTimeoutStore;
    this.timeoutStore = this.openStore();
    this.initialised = false;
    this.initPromise = undefined;
    await failed.close(0).catch((error: unknown) => this.reportError(error, 'close'));
  }

  private init(): Promise<void> {
    const topics: StoreTopic[] = [...this.options.topics].map(([name, topic]) => ({ name, slots: topic.slots }));
    this.initPromise ??= this.timeoutStore
      .init(topics)
      .then(() => this.layouts.init())
      .then(
      () => {
        this.initialised = true;
      },
      (error: unknown) => {
        this.initPromise = undefined;
        throw error;
      },
    );
    return this.initPromise;
  }

  private async subscribe(topics: readonly string[]): Promise<void> {
    const unsubscribe = await this.timeoutStore.subscribe(
      topics,
      (slot, dueAt) => this.workers.get(slot.topic)?.wake(slot.slot, dueAt),
      () => {
        for (const worker of this.workers.values()) worker.sweepNow();
      },
      (topic) => this.layouts.refreshSoon(topic),
    );
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') await unsubscribe().catch(() => undefined);
    else this.unsubscribers.push(unsubscribe);
  }

  /**
   * Three steps, and only the second waits on Redis:
   * 1. drain: stop claiming and wait up to `drainMs` for running handlers (a start in progress
   *    gives up; it opened nothing that the close below does not close);
   * 2. hand back, one round trip bounded by `commandTimeoutMs`: release the timeouts of handlers
   *    still running and of claims that came back after the halt, send the acks and failure
   *    records of finished handlers;
   * 3. close: unsubscribe and close the store this instance opened, with a clean QUIT only in
   *    what is left of step 2's budget.
   */
  private async shutdown(drainMs: number): Promise<void> {
    this.lifecycle = 'stopping';
    clearInterval(this.layoutTimer);
    const workers = [...this.workers.values()];
    for (const worker of workers) worker.halt();
    const drained = await Promise.all(workers.map((worker) => worker.waitForHandlers(drainMs)));

    const { commandTimeoutMs } = this.options;
    const handBackEnd = performance.now() + commandTimeoutMs;
    const reason = new TimeoutsStoppedError(errorMessages.stopped('handler (drainMs passed)'));
    const handBack = workers.flatMap((worker, i) => [
      drained[i] ? Promise.resolve() : worker.releaseRunning(reason),
      // A claim already out comes back after halt: its timeouts are released, not run.
      worker.pollersSettled(),
      worker.idle(),
    ]);
    await settledWithin(Promise.all(handBack), commandTimeoutMs);

    const closeWithinMs = Math.max(0, handBackEnd - performance.now());
    const unsubscribers = this.unsubscribers.splice(0);
    this.storeOpen = !this.ownsStore;
    if (this.ownsStore) {
      // Closing the store closes its wake-up subscriptions too.
      await (this.timeoutStore as RedisTimeoutStore).close(closeWithinMs).catch((error: unknown) => this.reportError(error, 'close'));
    } else {
      await settledWithin(Promise.all(unsubscribers.map((unsubscribe) => unsubscribe())), closeWithinMs);
    }
    this.lifecycle = 'stopped';
  }

  private async onDeadLetters(
    topic: string,
    ids: readonly string[] | undefined,
    action: (ref: SlotRef, ids?: readonly string[]) => Promise<number>,
  ): Promise<number> {
    this.topicOptions(topic);
    if (ids !== undefined && !Array.isArray(ids)) {
      throw new InvalidOptionsError(errorMessages.invalidOption('ids', ids, 'use an array of timeout ids, or omit it for all'));
    }
    ids?.forEach((id) => assertTimeoutId(id));
    if (!this.initialised) await this.init();
    if (ids === undefined) return sum(await Promise.all(this.layouts.slotRefs(topic).map((ref) => this.layouts.onSlot(topic, () => action(ref)))));
    const byRoute = new Map<SlotRef, string[]>();
    for (const id of new Set(ids)) {
      const ref = this.layouts.route(topic, id);
      const group = byRoute.get(ref);
      if (group) group.push(id);
      else byRoute.set(ref, [id]);
    }
    const counts = [...byRoute].map(([ref, slotIds]) =>
      action(ref, slotIds).catch((error: unknown) => {
        if (!isRoutingError(error)) throw error;
        // The slot moved or is moving (a slot migration): each id goes where it lives now.
        return Promise.all(slotIds.map((id) => this.layouts.onId(topic, id, (routed) => action(routed, [id])))).then(sum);
      }),
    );
    return sum(await Promise.all(counts));
  }

  private topicOptions(topic: string): ResolvedTopicOptions {
    const options = typeof topic === 'string' ? this.options.topics.get(topic) : undefined;
    if (!options) throw new UnknownTopicError(String(topic), [...this.options.topics.keys()]);
    return options;
  }


  private assertUsable(operation: string): void {
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') throw new TimeoutsStoppedError(errorMessages.stopped(operation));
  }

  private reportError(error: unknown, operation: string, topic?: string): void {
    const cause = toError(error);
    if (this.failover.isWarning(cause)) {
      if (!this.outage) {
        this.outage = true;
        this.options.logger?.warn(engineMessages.storeFailingOver(operation, cause.message), { operation, topic });
      }
      this.events.emit('warning', topic === undefined ? { error: cause, operation } : { error: cause, topic, operation });
      return;
    }
    if (!this.outage) {
      this.outage = true;
      this.options.logger?.error(engineMessages.storeFailing(operation, cause.message), { operation, topic });
    }
    this.events.emit('error', topic === undefined ? { error: cause, operation } : { error: cause, topic, operation });
  }
}

/** A stored payload as the handler sees it (carried text left out); text that is not JSON (edited by hand) reads as null. */
function readPayload(text: string): unknown {
  const parsed = parseStoredPayload(splitCarried(text).payload);
  return parsed.ok ? parsed.value : null;
}

/** Validates the `offset` and `limit` of a listing (`listDead`, `listPending`). */
function pageOf(operation: string, options: { offset?: number; limit?: number }): { offset: number; limit: number } {
  const offset = integerIn(`${operation} offset`, options.offset, 0, 0, MAX_PAGE_DEPTH);
  const limit = integerIn(`${operation} limit`, options.limit, 100, 1, MAX_PAGE);
  if (offset + limit > MAX_PAGE_DEPTH) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`${operation} offset + limit`, offset + limit, `use at most ${MAX_PAGE_DEPTH}`));
  }
  return { offset, limit };
}

/** One page of the slots' lists merged by time, ties by id (each list is sorted that way already). */
function mergedPage<T extends { id: string }>(perSlot: readonly T[][], timeOf: (entry: T) => number, offset: number, limit: number): T[] {
  return perSlot
    .flat()
    .sort((a, b) => timeOf(a) - timeOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(offset, offset + limit);
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}
