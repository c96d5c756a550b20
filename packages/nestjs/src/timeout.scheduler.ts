import { Inject, Injectable } from '@nestjs/common';
import {
  DurableTimeouts,
  type CancelManyResult,
  type CancelResult,
  type DeadLetter,
  type ResumeOptions,
  type ScheduleManyResult,
  type ScheduleResult,
  type TimeoutInfo,
  type TopicName,
  type TopicPayload,
  type TopicScheduleManyItem,
  type TopicScheduleOptions,
  type TopicPauseState,
  type TopicResumeResult,
  type TopicStats,
} from '@durable-timeout/core';
import type { RegisteredTopics } from './typed-topics.js';
import { DURABLE_TIMEOUTS } from './durable-timeout.constants.js';
import { TimeoutReadinessWatcher } from './timeout-readiness.watcher.js';

/**
 * The public runtime API of the module: schedule, cancel and inspect timeouts, manage dead
 * letters. Inject it anywhere the module is visible:
 *
 * ```ts
 * constructor(private readonly timeouts: TimeoutScheduler<{ payment: PaymentDeadline }>) {}
 * await this.timeouts.schedule('payment', order.id, { delayMs: 60_000, payload: { orderId: order.id } });
 * ```
 *
 * `TTopics` declares the topics and their payload types (see `TopicsDeclaration`): a map of topic
 * name to payload type makes an unknown topic or a payload of the wrong shape a compile error. It
 * defaults to the topics declared in `DurableTimeoutTopics` (untyped while none is). The type
 * argument is for the compiler only: every `TimeoutScheduler` is the same injected instance.
 *
 * Every call goes straight to the engine; see `DurableTimeouts` for the exact semantics and errors.
 */
@Injectable()
export class TimeoutScheduler<TTopics = RegisteredTopics> {
  constructor(
    @Inject(DURABLE_TIMEOUTS) private readonly timeouts: DurableTimeouts,
    private readonly readiness: TimeoutReadinessWatcher,
  ) {}

  /** The underlying engine, for what this service does not wrap (events, `health`, `fireDue`). */
  get engine(): DurableTimeouts<TTopics> {
    return this.timeouts as DurableTimeouts<TTopics>;
  }

  /**
   * Schedules (upserts) the timeout `id` of `topic`: fires after `delayMs` (Redis server clock) or
   * at `at`. Scheduling the same id again replaces its due time and payload, unless `ifExists`
   * (`keep`, `earlier`, `later`) says to keep the existing timeout.
   */
  schedule<K extends TopicName<TTopics>>(topic: K, id: string, options: TopicScheduleOptions<TTopics, K>): Promise<ScheduleResult> {
    return this.engine.schedule(topic, id, options);
  }

  /**
   * Schedules many timeouts of one topic (up to 10,000 a call): one atomic script call per slot,
   * pipelined across slots; one result per item, in order (`ok: false` with its typed error for
   * an item refused by validation, which stores nothing of it). See `DurableTimeouts.scheduleMany`.
   */
  scheduleMany<K extends TopicName<TTopics>>(topic: K, items: readonly TopicScheduleManyItem<TTopics, K>[]): Promise<ScheduleManyResult[]> {
    return this.engine.scheduleMany(topic, items);
  }

  /** Cancels many timeouts of one topic (up to 10,000 a call), one result per id, in order. See `DurableTimeouts.cancelMany`. */
  cancelMany(topic: TopicName<TTopics>, ids: readonly string[]): Promise<CancelManyResult[]> {
    return this.engine.cancelMany(topic, ids);
  }

  /**
   * Cancels a timeout: `cancelled` (it was pending), `firing` (a handler runs it: removed all the same, the handler's
   * `event.signal` aborted with `TimeoutCancelledError`) or `not_found`. See `DurableTimeouts.cancel`.
   */
  cancel(topic: TopicName<TTopics>, id: string): Promise<CancelResult> {
    return this.engine.cancel(topic, id);
  }

  /** Reads a timeout in any state (pending, firing, dead), or null. */
  get<K extends TopicName<TTopics>>(topic: K, id: string): Promise<TimeoutInfo<TopicPayload<TTopics, K>> | null> {
    return this.engine.get(topic, id);
  }

  /** Pending, firing and dead counts of a topic and the age of its oldest overdue timeout. */
  stats(topic: TopicName<TTopics>): Promise<TopicStats> {
    return this.engine.stats(topic);
  }

  /** Dead letters of a topic, oldest first, with their last error. */
  listDead<K extends TopicName<TTopics>>(topic: K, options?: { offset?: number; limit?: number }): Promise<DeadLetter<TopicPayload<TTopics, K>>[]> {
    return this.engine.listDead(topic, options);
  }

  /** Puts dead letters back as due now with attempts reset (all of the topic when `ids` is omitted). Returns how many. */
  replayDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    return this.engine.replayDead(topic, ids);
  }

  /** Deletes dead letters (all of the topic when `ids` is omitted). Returns how many. */
  purgeDead(topic: TopicName<TTopics>, ids?: readonly string[]): Promise<number> {
    return this.engine.purgeDead(topic, ids);
  }

  /**
   * Pauses a topic on every instance: nothing of it fires until `resume`; schedules and cancels go
   * on. Kept in Redis (survives restarts). See docs/FLOW-CONTROL.md.
   */
  pause(topic: TopicName<TTopics>): Promise<TopicPauseState> {
    return this.engine.pause(topic);
  }

  /** Ends a topic's pause; `shift: true` moves every pending due time later by the length of the pause. */
  resume(topic: TopicName<TTopics>, options?: ResumeOptions): Promise<TopicResumeResult> {
    return this.engine.resume(topic, options);
  }

  /** Whether a topic is paused. */
  paused(topic: TopicName<TTopics>): Promise<boolean> {
    return this.engine.paused(topic);
  }

  /**
   * Resolves once the module has bootstrapped: `@OnTimeout` handlers are bound and, when this
   * application has any, its pollers run. Rejects with `ModuleNotStartedError` when bootstrap failed.
   */
  waitUntilReady(): Promise<void> {
    return this.readiness.waitUntilReady();
  }
}
