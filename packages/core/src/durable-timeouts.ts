import type { TimeoutStore } from './store/timeout-store.js';
import { RedisTimeoutStore } from './store/redis-timeout-store.js';
import type {
  CancelManyResult, CancelResult, DeadLetter, DurableTimeoutsEvents, DurableTimeoutsOptions, DurableTimeoutsSettings, HealthSnapshot,
  ResolvedTopicOptions, ResumeOptions, ScheduleManyResult, ScheduleResult, StopOptions, TimeoutHandler, TimeoutInfo, TimeoutInterceptor, TopicPauseState, TopicResumeResult, TopicSlotStats, TopicStats,
} from './types.js';
import type { TopicName, TopicPayload } from './typed-topics.js';
import type { TopicScheduleManyItem, TopicScheduleOptions } from './typed-schedule.js';
import { DuplicateHandlerError } from './errors/duplicate-handler.error.js';
import { InvalidOptionsError } from './errors/invalid-options.error.js';
import { TimeoutsStoppedError } from './errors/timeouts-stopped.error.js';
import { UnknownTopicError } from './errors/unknown-topic.error.js';
import { errorMessages } from './errors/errors.messages.js';
import { EventHub } from './engine/event-hub.js';
import { TopicWrites } from './engine/topic-writes.js';
import { TopicReads, type PageOptions } from './engine/topic-reads.js';
import { TopicPause } from './engine/topic-pause.js';
import { engineContext, type EngineContext } from './engine/engine-context.js';
import { engineMessages } from './engine/engine.messages.js';
import { ServerClock } from './engine/server-clock.js';
import { toError } from './support/to-error.js';
import { TopicWorkers } from './engine/topic-workers.js';
import { TopicLayouts } from './engine/topic-layouts.js';
import { migrateSlots, type SlotMigrationOptions, type SlotMigrationReport } from './engine/slot-migration.js';
import { resolveDrainMs, resolveOptions, type ResolvedOptions } from './validation/options.js';
import { describeType } from './validation/describe-type.js';
import { serializePayload } from './validation/payload.js';
import { StoreOutage } from './engine/store-outage.js';
import { StoreSession } from './engine/store-session.js';
import { RecurringSchedules, SCHEDULES_TOPIC, type ScheduleEngine } from './engine/recurring-schedules.js';

type Lifecycle = 'created' | 'running' | 'stopping' | 'stopped';

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
  private readonly session: StoreSession;
  private readonly events: EventHub<DurableTimeoutsEvents>;
  private readonly clock = new ServerClock();
  private readonly context: EngineContext;
  private readonly workers: TopicWorkers;
  private readonly layouts: TopicLayouts;
  private readonly interceptors: TimeoutInterceptor[] = [];
  private readonly resolvedSettings: DurableTimeoutsSettings;
  private lifecycle: Lifecycle = 'created';
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private storeOpen = true;
  private readonly outage: StoreOutage;
  private readonly writes: TopicWrites;
  private readonly reads: TopicReads;
  private readonly pauses: TopicPause;

  /**
   * Recurring schedules (cron expressions or intervals) that fire once per occurrence across all
   * instances: `upsert`, `remove`, `list`, and `handle` to register a schedule's handler. They
   * live in the topic `schedules`, which must be declared in `topics`. See docs/SCHEDULES.md.
   */
  readonly schedules: RecurringSchedules;

  constructor(options: DurableTimeoutsOptions<TTopics>) {
    this.options = resolveOptions(options as DurableTimeoutsOptions);
    const { logger } = this.options;
    const { prefix, topics, sweepIntervalMs, commandTimeoutMs, drainMs } = this.options;
    this.resolvedSettings = Object.freeze({ prefix, topics: Object.freeze(Object.fromEntries(topics)), sweepIntervalMs, commandTimeoutMs, drainMs });
    const configuredSlots = new Map([...topics].map(([topic, topicOptions]) => [topic, topicOptions.slots]));
    // The store may be replaced after a failed start: the layouts always use the current one.
    this.layouts = new TopicLayouts(() => this.session.store.layout, configuredSlots, commandTimeoutMs);
    this.session = new StoreSession(this.options, () => this.openRedisStore(), () => this.layouts.init());
    this.events = new EventHub<DurableTimeoutsEvents>((event, error) => {
      logger?.error(engineMessages.listenerThrew(String(event), toError(error, engineMessages.handlerThrewNonError).message), { event });
    });
    this.outage = new StoreOutage(logger, this.events);
    this.context = engineContext({
      session: this.session,
      events: this.events,
      logger,
      clock: this.clock,
      layouts: this.layouts,
      interceptors: this.interceptors,
      sweepIntervalMs,
      outage: this.outage,
      storeOpen: () => this.storeOpen,
    });
    this.workers = new TopicWorkers(this.context, {
      running: () => this.lifecycle === 'running',
      stopping: () => this.lifecycle === 'stopping' || this.lifecycle === 'stopped',
    });
    this.writes = new TopicWrites(this.context);
    this.reads = new TopicReads(this.context, (topic) => this.options.topics.get(topic)?.codec ?? null);
    this.schedules = new RecurringSchedules(this.scheduleEngine());
    this.pauses = new TopicPause(this.context, (topic) => this.workers.sweepTopic(topic));
  }

  /** Registers the handler of a topic (one per topic per instance). Call before `start`; later works too. */
  handle<K extends TopicName<TTopics>>(topic: K, handler: TimeoutHandler<TopicPayload<TTopics, K>>): this {
    const topicOptions = this.usableTopic('handle', topic);
    if (typeof handler !== 'function') throw new InvalidOptionsError(errorMessages.handlerNotFunction(topic, describeType(handler)));
    if (this.workers.has(topic)) throw new DuplicateHandlerError(errorMessages.duplicateHandler(topic));
    const worker = this.workers.add(topic, topicOptions, handler as TimeoutHandler<unknown>);
    if (this.lifecycle === 'running') this.workers.startLate(topic, worker);
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
  async schedule<K extends TopicName<TTopics>>(topic: K, id: string, options: TopicScheduleOptions<TTopics, K>): Promise<ScheduleResult> {
    return this.writes.schedule(topic, this.usableTopic('schedule', topic), id, options);
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
  async scheduleMany<K extends TopicName<TTopics>>(topic: K, items: readonly TopicScheduleManyItem<TTopics, K>[]): Promise<ScheduleManyResult[]> {
    return this.writes.scheduleMany(topic, this.usableTopic('scheduleMany', topic), items);
  }

  /**
   * Cancels many timeouts of one topic (up to 10,000 a call), each as `cancel` would: one atomic
   * script call per slot, pipelined across slots. One result per id, in the order given:
   * `{ ok: true, result }` (`cancelled`, `firing`, `not_found`) or `{ ok: false, error }` (an
   * invalid id, nothing sent for it; or the slot's call failed: `RedisUnavailableError`).
   */
  async cancelMany(topic: TopicName<TTopics>, ids: readonly string[]): Promise<CancelManyResult[]> {
    const results = await this.writesFor('cancelMany', topic).cancelMany(topic, ids);
    for (const item of results) if (item.ok && item.result === 'firing') this.workers.cancelRunning(topic, item.id);
    return results;
  }

  /**
   * Cancels a timeout: `cancelled` (it was pending and will never fire), `firing` (a handler runs
   * it now: the timeout is removed all the same, and that delivery's `event.signal` is aborted with
   * `TimeoutCancelledError` on the instance that runs it; whatever the handler does next is neither
   * acked nor retried nor dead-lettered), `not_found`.
   */
  async cancel(topic: TopicName<TTopics>, id: string): Promise<CancelResult> {
    const result = await this.writesFor('cancel', topic).cancel(topic, id);
    // The store's notice reaches every instance; this one need not wait for it.
    if (result === 'firing') this.workers.cancelRunning(topic, id);
    return result;
  }

  /**
   * Reads a timeout in any state (pending, firing, dead), or null. A stored payload that is not
   * JSON reads as null. One encoded by a codec that this instance cannot decode (no codec for the
   * topic, an unknown key id, a wrong key, altered bytes) throws `PayloadDecodeError`, which names
   * the cause and holds the rest of the timeout; `listPending` and `listDead` show such an entry with
   * a null payload and `payloadError` instead.
   */
  async get<K extends TopicName<TTopics>>(topic: K, id: string): Promise<TimeoutInfo<TopicPayload<TTopics, K>> | null> {
    return this.readsFor('get', topic).get(topic, id) as Promise<TimeoutInfo<TopicPayload<TTopics, K>> | null>;
  }

  /** Counts over all slots of a topic, the age of its oldest overdue pending timeout, and whether it is paused: one call per slot. */
  async stats(topic: TopicName<TTopics>): Promise<TopicStats> {
    return this.readsFor('stats', topic).stats(topic);
  }

  /** Dead letters of a topic, oldest first (default the first 100; `limit` up to 1,000, `offset + limit` up to 10,000). */
  async listDead<K extends TopicName<TTopics>>(topic: K, options: PageOptions = {}): Promise<DeadLetter<TopicPayload<TTopics, K>>[]> {
    return this.readsFor('listDead', topic).listDead(topic, options) as Promise<DeadLetter<TopicPayload<TTopics, K>>[]>;
  }

  /** Puts dead letters back as due now with attempts reset (all of the topic when `ids` is omitted). Returns how many. */
  async replayDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    return this.readsFor('replayDead', topic).replayDead(topic, ids);
  }

  /** Deletes dead letters (all of the topic when `ids` is omitted). Returns how many. */
  async purgeDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    return this.readsFor('purgeDead', topic).purgeDead(topic, ids);
  }

  /**
   * Pauses `topic` on every instance: no claim fires any of its timeouts until `resume`; handlers
   * running now finish. Schedules, cancels and reads go on. Kept in Redis, so it survives restarts.
   * Pausing a paused topic keeps its first pause time. See docs/FLOW-CONTROL.md.
   */
  async pause(topic: TopicName<TTopics>): Promise<TopicPauseState> {
    this.usableTopic('pause', topic);
    return this.pauses.pause(topic);
  }

  /**
   * Ends the pause of `topic` and wakes every instance's pollers of it. `shift: true` moves every
   * pending due time later by the length of the pause; by default what fell due fires now.
   */
  async resume(topic: TopicName<TTopics>, options: ResumeOptions = {}): Promise<TopicResumeResult> {
    this.usableTopic('resume', topic);
    if (typeof options !== 'object' || options === null || (options.shift !== undefined && typeof options.shift !== 'boolean')) {
      throw new InvalidOptionsError(errorMessages.invalidOption('resume options', options, 'use { shift?: boolean }'));
    }
    return this.pauses.resume(topic, options);
  }

  /** Whether `topic` is paused (any of its slots), and since when. */
  async pauseState(topic: TopicName<TTopics>): Promise<TopicPauseState> {
    this.usableTopic('pauseState', topic);
    return this.pauses.state(topic);
  }

  /** Whether `topic` is paused: `pauseState(topic)`'s `paused`. */
  async paused(topic: TopicName<TTopics>): Promise<boolean> {
    return (await this.pauseState(topic)).paused;
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
    this.usableTopic('migrateSlots', topic);
    await this.session.store.init([...this.options.topics].map(([name, topicOptions]) => ({ name, slots: topicOptions.slots })));
    const report = await migrateSlots(this.session.store, topic, slots, options);
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
    await this.session.init();
    return this.workers.fireDue();
  }

  /** Liveness figures for health checks; never throws. */
  async health(): Promise<HealthSnapshot> {
    const ping = async () => this.session.store.ping();
    const redisLatencyMs = this.storeOpen ? await ping().catch(() => null) : null;
    const running = this.lifecycle === 'running';
    return { redisLatencyMs, running, ...this.workers.figures(running) };
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
   * timeouts fire again after `leaseMs` (at least once, never lost). What it did: the `stopped` event.
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
    return this.session.store;
  }

  /** The topics this instance was configured with, in the order given. */
  get topics(): TopicName<TTopics>[] {
    return [...this.options.topics.keys()] as TopicName<TTopics>[];
  }

  /** Counts of every slot of a topic (index = slot number): how evenly its timeouts spread. */
  async slotStats(topic: TopicName<TTopics>): Promise<TopicSlotStats[]> {
    return this.readsFor('slotStats', topic).slotStats(topic);
  }

  /**
   * The next pending timeouts of a topic, earliest due first across all its slots (default the
   * first 100; `limit` up to 1,000, `offset + limit` up to 10,000). Each slot is read by rank, never
   * whole, then each listed timeout like `get`: one that fired or was cancelled meanwhile is left
   * out, one claimed meanwhile shows as `firing`.
   */
  async listPending<K extends TopicName<TTopics>>(topic: K, options: PageOptions = {}): Promise<TimeoutInfo<TopicPayload<TTopics, K>>[]> {
    return this.readsFor('listPending', topic).listPending(topic, options) as Promise<TimeoutInfo<TopicPayload<TTopics, K>>[]>;
  }

  private async startPollers(): Promise<void> {
    try {
      await this.session.init();
      const handled = this.workers.topics;
      await Promise.all(handled.map((topic) => this.layouts.recordLayout(topic)));
      if (handled.length > 0) await this.workers.subscribe(handled);
    } catch (error) {
      // Stopped meanwhile: the stop closed the store under this start, and it has nothing left to do.
      if (this.stopPromise) return;
      await this.session.replaceFailed((error) => this.outage.failed(error, 'close'));
      throw error;
    }
    if (this.stopPromise) return;
    this.lifecycle = 'running';
    this.workers.startAll();
  }

  /**
   * Three steps, and only the second waits on Redis: drain and hand back (`drainWorkers`: wait up
   * to `drainMs` for running handlers, then one round trip bounded by `commandTimeoutMs`; a start
   * in progress gives up, it opened nothing the close does not close), then close: unsubscribe and
   * close the store this instance opened, with a clean QUIT only in what is left of the hand-back's
   * budget.
   */
  private async shutdown(drainMs: number, startedAt = performance.now()): Promise<void> {
    this.lifecycle = 'stopping';
    const { closeWithinMs, ...drained } = await this.workers.drain(drainMs, this.options.commandTimeoutMs);
    this.storeOpen = !this.session.owned;
    await this.session.close(closeWithinMs, this.workers.takeUnsubscribers(), (error) => this.outage.failed(error, 'close'));
    this.lifecycle = 'stopped';
    this.events.emit('stopped', { ...drained, tookMs: Math.round(performance.now() - startedAt) });
  }

  /** The engine's calls on the schedules topic, for `schedules`. */
  private scheduleEngine(): ScheduleEngine {
    const topic = SCHEDULES_TOPIC;
    return {
      assertUsable: (operation) => {
        this.assertUsable(operation);
        if (!this.options.topics.has(topic)) {
          throw new UnknownTopicError(topic, [...this.options.topics.keys()], { message: errorMessages.schedulesTopicMissing(operation) });
        }
      },
      schedule: async (id, options) => this.writes.schedule(topic, this.topicOptions(topic), id, options),
      // As `schedule` stores a payload: the size limit, and the topic's codec when it has one.
      serialize: (payload) => serializePayload(payload, topic, this.topicOptions(topic).maxPayloadBytes, this.topicOptions(topic).codec),
      cancel: async (id) => this.writes.cancel(topic, id),
      get: async (id) => this.reads.get(topic, id),
      listPending: async (offset, limit) => this.reads.listPending(topic, { offset, limit }),
      listDeadIds: async (offset, limit) => (await this.reads.listDead(topic, { offset, limit })).map((letter) => letter.id),
      purgeDead: async (ids) => this.reads.purgeDead(topic, ids),
      slotRefs: () => this.layouts.slotRefs(topic),
      reads: () => this.session.store.reads,
      handle: (handler) => this.handle(topic as TopicName<TTopics>, handler as TimeoutHandler<TopicPayload<TTopics, TopicName<TTopics>>>),
      storeNow: async () => {
        await this.session.init();
        return this.session.store.now();
      },
      // Known once a claim answered, which comes before any occurrence's handler runs.
      clockNow: () => (this.clock.known ? this.clock.now() : Date.now()),
    };
  }

  /** The Redis store of an instance given no `store`: opened here, and again after a failed start. */
  private openRedisStore(): RedisTimeoutStore {
    const { connection, prefix, commandTimeoutMs, logger, durability } = this.options;
    return new RedisTimeoutStore({ connection, prefix, commandTimeoutMs, logger, ...(durability ? { durability } : {}) });
  }

  private topicOptions(topic: string): ResolvedTopicOptions {
    const options = typeof topic === 'string' ? this.options.topics.get(topic) : undefined;
    if (!options) throw new UnknownTopicError(String(topic), [...this.options.topics.keys()]);
    return options;
  }

  /** The engine's reads, for `operation` on `topic`, behind the one check of `usableTopic`. */
  private readsFor(operation: string, topic: string): TopicReads {
    this.usableTopic(operation, topic);
    return this.reads;
  }

  /** The engine's writes by id, for `operation` on `topic`, behind the one check of `usableTopic`. */
  private writesFor(operation: string, topic: string): TopicWrites {
    this.usableTopic(operation, topic);
    return this.writes;
  }

  /** The options of `topic`, for `operation`: throws `TimeoutsStoppedError` once stopping, `UnknownTopicError` for a topic not configured. */
  private usableTopic(operation: string, topic: string): ResolvedTopicOptions {
    this.assertUsable(operation);
    return this.topicOptions(topic);
  }

  private assertUsable(operation: string): void {
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') throw new TimeoutsStoppedError(errorMessages.stopped(operation));
  }
}
