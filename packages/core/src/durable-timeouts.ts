import { RedisTimeoutStore } from './store/redis-timeout-store.js';
import { slotOf } from './store/slot-of.js';
import type { SlotRef, StoreScheduleEntry, StoreTopic, TimeoutStore } from './store/timeout-store.js';
import type {
  CancelResult,
  DeadLetter,
  DurableTimeoutsEvents,
  DurableTimeoutsOptions,
  HealthSnapshot,
  JsonValue,
  ResolvedTopicOptions,
  ScheduleOptions,
  ScheduleResult,
  StopOptions,
  TimeoutHandler,
  TimeoutInfo,
  TopicStats,
} from './types.js';
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
import { integerIn, resolveOptions, type ResolvedOptions } from './validation/options.js';
import { serializePayload } from './validation/payload.js';
import { parseStoredPayload } from './validation/safe-json.js';
import { assertTimeoutId } from './validation/timeout-id.js';
import { validateTiming } from './validation/timing.js';
import { describeType } from './validation/describe-type.js';

type Lifecycle = 'created' | 'running' | 'stopping' | 'stopped';

/** Largest page `listDead` returns, and deepest it pages (offset + limit). */
const MAX_DEAD_PAGE = 1_000;
const MAX_DEAD_DEPTH = 10_000;

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
export class DurableTimeouts<TTopics extends string = string> {
  private readonly options: ResolvedOptions;
  private readonly timeoutStore: TimeoutStore;
  private readonly ownsStore: boolean;
  private readonly events: EventHub<DurableTimeoutsEvents>;
  private readonly clock = new ServerClock();
  private readonly context: EngineContext;
  private readonly workers = new Map<string, TopicWorker>();
  private readonly slotRefs = new Map<string, readonly SlotRef[]>();
  private readonly unsubscribers: (() => Promise<void>)[] = [];
  private lifecycle: Lifecycle = 'created';
  private initialised = false;
  private initPromise: Promise<void> | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private storeOpen = true;
  private outage = false;

  constructor(options: DurableTimeoutsOptions<TTopics>) {
    this.options = resolveOptions(options as DurableTimeoutsOptions);
    const { logger } = this.options;
    if (this.options.store) {
      this.timeoutStore = this.options.store;
      this.ownsStore = false;
    } else {
      this.timeoutStore = new RedisTimeoutStore({
        connection: this.options.connection,
        prefix: this.options.prefix,
        commandTimeoutMs: this.options.commandTimeoutMs,
        logger,
      });
      this.ownsStore = true;
    }
    for (const [topic, topicOptions] of this.options.topics) {
      const refs: SlotRef[] = [];
      for (let slot = 0; slot < topicOptions.slots; slot++) refs.push({ topic, slot });
      this.slotRefs.set(topic, refs);
    }
    this.events = new EventHub<DurableTimeoutsEvents>((event, error) => {
      logger?.error(engineMessages.listenerThrew(String(event), toError(error).message), { event });
    });
    const engine = this;
    this.context = {
      store: this.timeoutStore,
      events: this.events,
      logger,
      clock: this.clock,
      sweepIntervalMs: this.options.sweepIntervalMs,
      get storeOpen() {
        return engine.storeOpen;
      },
      reportError: (error, operation, topic) => this.reportError(error, operation, topic),
      reportHealthy: () => {
        if (!this.outage) return;
        this.outage = false;
        logger?.log(engineMessages.storeRecovered());
      },
    };
  }

  /** Registers the handler of a topic (one per topic per instance). Call before `start`; later works too. */
  handle<TPayload = JsonValue>(topic: TTopics, handler: TimeoutHandler<TPayload>): this {
    this.assertUsable('handle');
    const topicOptions = this.topicOptions(topic);
    if (typeof handler !== 'function') throw new InvalidOptionsError(errorMessages.handlerNotFunction(topic, describeType(handler)));
    if (this.workers.has(topic)) throw new DuplicateHandlerError(errorMessages.duplicateHandler(topic));
    const worker = new TopicWorker(this.context, topic, topicOptions, handler as TimeoutHandler<unknown>, this.slotRefs.get(topic)!);
    this.workers.set(topic, worker);
    if (this.lifecycle === 'running') {
      const startWorker = () => {
        if (this.lifecycle === 'running') worker.start();
      };
      this.subscribe([topic]).then(startWorker, (error: unknown) => {
        this.reportError(error, 'subscribe', topic);
        // Without wake-ups the sweep still fires everything, only later.
        startWorker();
      });
    }
    return this;
  }

  /**
   * Checks the store (and warns when Redis keeps no append-only file), subscribes to wake-ups and
   * starts the slot pollers of every topic that has a handler. Idempotent. Scheduling works
   * without `start`: an instance that only schedules never needs it.
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
   * Schedules (upserts) the timeout `id` of `topic`: the last call for an id wins for due time and
   * payload. `delayMs` counts on the store clock (Redis `TIME`), `at` is absolute. Bad input
   * throws a typed error and stores nothing; while Redis is unreachable it rejects with
   * `RedisUnavailableError` after about `commandTimeoutMs` (retrying is safe: it is an upsert).
   */
  async schedule<TPayload = JsonValue>(topic: TTopics, id: string, options: ScheduleOptions<TPayload>): Promise<ScheduleResult> {
    this.assertUsable('schedule');
    const topicOptions = this.topicOptions(topic);
    assertTimeoutId(id);
    if (typeof options !== 'object' || options === null) throw new InvalidDelayError(errorMessages.timingMissing());
    const timing = validateTiming(options as { delayMs?: unknown; at?: unknown }, Date.now());
    const payload = 'payload' in options ? serializePayload(options.payload, topic, topicOptions.maxPayloadBytes) : 'null';
    const entry: StoreScheduleEntry = timing.at === undefined ? { delayMs: timing.delayMs, payload } : { at: timing.at, payload };
    if (!this.initialised) await this.init();
    const { outcome, dueAt } = await this.timeoutStore.schedule(this.slotRef(topic, id, topicOptions), id, entry);
    if (this.events.has('scheduled')) this.events.emit('scheduled', { topic, id, dueAt, outcome });
    return { topic, id, dueAt, outcome };
  }

  /**
   * Cancels a pending timeout: `cancelled` (it will never fire), `firing` (a handler holds it now;
   * nothing changed, it runs to the end), `not_found`.
   */
  async cancel(topic: TTopics, id: string): Promise<CancelResult> {
    this.assertUsable('cancel');
    const topicOptions = this.topicOptions(topic);
    assertTimeoutId(id);
    if (!this.initialised) await this.init();
    const result = await this.timeoutStore.cancel(this.slotRef(topic, id, topicOptions), id);
    if (result === 'cancelled') this.events.emit('cancelled', { topic, id });
    return result;
  }

  /** Reads a timeout in any state (pending, firing, dead), or null. A stored payload that is not JSON reads as null. */
  async get<TPayload = JsonValue>(topic: TTopics, id: string): Promise<TimeoutInfo<TPayload> | null> {
    this.assertUsable('get');
    const topicOptions = this.topicOptions(topic);
    assertTimeoutId(id);
    if (!this.initialised) await this.init();
    const stored = await this.timeoutStore.get(this.slotRef(topic, id, topicOptions), id);
    if (stored === null) return null;
    const info: TimeoutInfo<TPayload> = {
      topic,
      id,
      state: stored.state,
      dueAt: stored.dueAt,
      scheduledAt: stored.scheduledAt,
      attempt: stored.attempt,
      payload: readPayload(stored.payload) as TPayload,
    };
    if (stored.leaseExpiresAt !== undefined) info.leaseExpiresAt = stored.leaseExpiresAt;
    if (stored.lastError !== undefined) info.lastError = stored.lastError;
    return info;
  }

  /** Counts over all slots of a topic, and the age of its oldest overdue pending timeout. */
  async stats(topic: TTopics): Promise<TopicStats> {
    this.assertUsable('stats');
    this.topicOptions(topic);
    if (!this.initialised) await this.init();
    const slots = await Promise.all(this.slotRefs.get(topic)!.map((ref) => this.timeoutStore.stats(ref)));
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
  async listDead<TPayload = JsonValue>(topic: TTopics, options: { offset?: number; limit?: number } = {}): Promise<DeadLetter<TPayload>[]> {
    this.assertUsable('listDead');
    this.topicOptions(topic);
    const offset = integerIn('listDead offset', options.offset, 0, 0, MAX_DEAD_DEPTH);
    const limit = integerIn('listDead limit', options.limit, 100, 1, MAX_DEAD_PAGE);
    if (offset + limit > MAX_DEAD_DEPTH) {
      throw new InvalidOptionsError(errorMessages.invalidOption('listDead offset + limit', offset + limit, `use at most ${MAX_DEAD_DEPTH}`));
    }
    if (!this.initialised) await this.init();
    // Every slot is sorted by time of death; the first offset + limit of each are enough to merge.
    const perSlot = await Promise.all(this.slotRefs.get(topic)!.map((ref) => this.timeoutStore.listDead(ref, 0, offset + limit)));
    const merged = perSlot.flat().sort((a, b) => a.deadAt - b.deadAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return merged.slice(offset, offset + limit).map((letter) => ({
      topic,
      id: letter.id,
      payload: readPayload(letter.payload) as TPayload,
      attempts: letter.attempts,
      lastError: letter.lastError,
      deadAt: letter.deadAt,
      scheduledAt: letter.scheduledAt,
    }));
  }

  /** Puts dead letters back as due now with attempts reset (all of the topic when `ids` is omitted). Returns how many. */
  async replayDead(topic: TTopics, ids?: readonly string[]): Promise<number> {
    this.assertUsable('replayDead');
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.timeoutStore.replayDead(ref, slotIds));
  }

  /** Deletes dead letters (all of the topic when `ids` is omitted). Returns how many. */
  async purgeDead(topic: TTopics, ids?: readonly string[]): Promise<number> {
    this.assertUsable('purgeDead');
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.timeoutStore.purgeDead(ref, slotIds));
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
   * Graceful shutdown: stops claiming, waits up to `drainMs` (default 10,000) for running
   * handlers, then aborts the `signal` of those still running and releases their timeouts as due
   * now (no attempt spent) so another instance fires them at once. Then unsubscribes and closes
   * the store if this instance opened it. Idempotent; every other call afterwards throws
   * `TimeoutsStoppedError`.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    const drainMs = integerIn('drainMs', options.drainMs === undefined ? undefined : Math.round(options.drainMs), 10_000, 0, 3_600_000);
    this.stopPromise = this.shutdown(drainMs);
    return this.stopPromise;
  }

  /** Subscribes to an engine event. Returns a function that unsubscribes. */
  on<K extends keyof DurableTimeoutsEvents>(event: K, listener: (data: DurableTimeoutsEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  /** The store in use (Redis or memory). */
  get store(): TimeoutStore {
    return this.timeoutStore;
  }

  private async startPollers(): Promise<void> {
    await this.init();
    const handled = [...this.workers.keys()];
    if (handled.length > 0) await this.subscribe(handled);
    if (this.stopPromise) return;
    this.lifecycle = 'running';
    for (const worker of this.workers.values()) worker.start();
  }

  private init(): Promise<void> {
    const topics: StoreTopic[] = [...this.options.topics].map(([name, topic]) => ({ name, slots: topic.slots }));
    this.initPromise ??= this.timeoutStore.init(topics).then(
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
    );
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') await unsubscribe().catch(() => undefined);
    else this.unsubscribers.push(unsubscribe);
  }

  private async shutdown(drainMs: number): Promise<void> {
    const wasRunning = this.lifecycle === 'running';
    this.lifecycle = 'stopping';
    await this.startPromise?.catch(() => undefined);
    const workers = [...this.workers.values()];
    for (const worker of workers) worker.halt();
    const settleMs = this.options.commandTimeoutMs * 2 + 1_000;
    const deadline = performance.now() + drainMs;
    if (wasRunning) {
      // A claim already out comes back after halt: its timeouts are released, not run.
      await within(Promise.all(workers.map((worker) => worker.pollersSettled())), Math.max(drainMs, settleMs));
    }
    const drained = await Promise.all(workers.map((worker) => worker.waitForHandlers(Math.max(0, deadline - performance.now()))));
    if (drained.includes(false)) {
      const reason = new TimeoutsStoppedError(errorMessages.stopped('handler (drainMs passed)'));
      await within(Promise.all(workers.map((worker) => worker.releaseRunning(reason))), settleMs);
    }
    await within(Promise.all(workers.map((worker) => worker.idle())), settleMs);
    const unsubscribers = this.unsubscribers.splice(0);
    await within(Promise.all(unsubscribers.map((unsubscribe) => unsubscribe().catch(() => undefined))), settleMs);
    if (this.ownsStore) await this.timeoutStore.close().catch((error: unknown) => this.reportError(error, 'close'));
    this.storeOpen = !this.ownsStore;
    this.lifecycle = 'stopped';
  }

  private async onDeadLetters(
    topic: TTopics,
    ids: readonly string[] | undefined,
    action: (ref: SlotRef, ids?: readonly string[]) => Promise<number>,
  ): Promise<number> {
    const topicOptions = this.topicOptions(topic);
    const refs = this.slotRefs.get(topic)!;
    if (ids !== undefined && !Array.isArray(ids)) {
      throw new InvalidOptionsError(errorMessages.invalidOption('ids', ids, 'use an array of timeout ids, or omit it for all'));
    }
    ids?.forEach((id) => assertTimeoutId(id));
    if (!this.initialised) await this.init();
    if (ids === undefined) return sum(await Promise.all(refs.map((ref) => action(ref))));
    const bySlot = new Map<number, string[]>();
    for (const id of new Set(ids)) {
      const slot = slotOf(id, topicOptions.slots);
      const group = bySlot.get(slot);
      if (group) group.push(id);
      else bySlot.set(slot, [id]);
    }
    return sum(await Promise.all([...bySlot].map(([slot, slotIds]) => action(refs[slot]!, slotIds))));
  }

  private topicOptions(topic: string): ResolvedTopicOptions {
    const options = typeof topic === 'string' ? this.options.topics.get(topic) : undefined;
    if (!options) throw new UnknownTopicError(String(topic), [...this.options.topics.keys()]);
    return options;
  }

  private slotRef(topic: string, id: string, options: ResolvedTopicOptions): SlotRef {
    return this.slotRefs.get(topic)![options.slots === 1 ? 0 : slotOf(id, options.slots)]!;
  }

  private assertUsable(operation: string): void {
    if (this.lifecycle === 'stopping' || this.lifecycle === 'stopped') throw new TimeoutsStoppedError(errorMessages.stopped(operation));
  }

  private reportError(error: unknown, operation: string, topic?: string): void {
    const cause = toError(error);
    if (!this.outage) {
      this.outage = true;
      this.options.logger?.error(engineMessages.storeFailing(operation, cause.message), { operation, topic });
    }
    this.events.emit('error', topic === undefined ? { error: cause, operation } : { error: cause, topic, operation });
  }
}

/** A stored payload as the handler sees it; text that is not JSON (edited by hand) reads as null. */
function readPayload(text: string): unknown {
  const parsed = parseStoredPayload(text);
  return parsed.ok ? parsed.value : null;
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}

/** Waits for `promise`, but no longer than `ms`; never rejects. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
