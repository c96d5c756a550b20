import type { TimeoutStore } from './store/timeout-store.js';
import type {
  CancelResult,
  DeadLetter,
  DurableTimeoutsEvents,
  DurableTimeoutsOptions,
  HealthSnapshot,
  JsonValue,
  ScheduleOptions,
  ScheduleResult,
  StopOptions,
  TimeoutHandler,
  TimeoutInfo,
  TopicStats,
} from './types.js';

/**
 * Durable timeouts kept in Redis: schedule "do X if Y has not happened within N ms", and have it
 * fire exactly once per due time across any number of instances, after restarts and crashes.
 *
 * SKELETON: the public surface is fixed here so the Nest layer, the apps, the benchmark and the
 * chaos suite can code against it; the engine fills in the bodies.
 */
export class DurableTimeouts<TTopics extends string = string> {
  constructor(options: DurableTimeoutsOptions<TTopics>) {
    void options;
    throw new Error('not implemented yet');
  }

  /** Registers the handler of a topic (one per topic per instance). Call before `start`. */
  handle<TPayload = JsonValue>(topic: TTopics, handler: TimeoutHandler<TPayload>): this {
    void topic; void handler;
    throw new Error('not implemented yet');
  }

  /** Starts the slot pollers of every topic that has a handler. Scheduling works without `start`. */
  async start(): Promise<void> {
    throw new Error('not implemented yet');
  }

  /** Schedules (upserts) the timeout `id` of `topic`. */
  async schedule<TPayload = JsonValue>(topic: TTopics, id: string, options: ScheduleOptions<TPayload>): Promise<ScheduleResult> {
    void topic; void id; void options;
    throw new Error('not implemented yet');
  }

  /** Cancels a pending timeout. */
  async cancel(topic: TTopics, id: string): Promise<CancelResult> {
    void topic; void id;
    throw new Error('not implemented yet');
  }

  /** Reads a timeout in any state, or null. */
  async get<TPayload = JsonValue>(topic: TTopics, id: string): Promise<TimeoutInfo<TPayload> | null> {
    void topic; void id;
    throw new Error('not implemented yet');
  }

  /** Counts over all slots of a topic. */
  async stats(topic: TTopics): Promise<TopicStats> {
    void topic;
    throw new Error('not implemented yet');
  }

  /** Dead letters of a topic, oldest first. */
  async listDead<TPayload = JsonValue>(topic: TTopics, options?: { offset?: number; limit?: number }): Promise<DeadLetter<TPayload>[]> {
    void topic; void options;
    throw new Error('not implemented yet');
  }

  /** Puts dead letters back as due now with attempts reset (all of the topic when `ids` is omitted). */
  async replayDead(topic: TTopics, ids?: readonly string[]): Promise<number> {
    void topic; void ids;
    throw new Error('not implemented yet');
  }

  /** Deletes dead letters (all of the topic when `ids` is omitted). */
  async purgeDead(topic: TTopics, ids?: readonly string[]): Promise<number> {
    void topic; void ids;
    throw new Error('not implemented yet');
  }

  /** Claims and runs everything due now in every handled slot, and waits for those handlers (tests, manual clocks). */
  async fireDue(): Promise<number> {
    throw new Error('not implemented yet');
  }

  /** Liveness figures for health checks; never throws. */
  async health(): Promise<HealthSnapshot> {
    throw new Error('not implemented yet');
  }

  /** Stops claiming, drains running handlers up to `drainMs`, releases the rest, closes what it opened. */
  async stop(options?: StopOptions): Promise<void> {
    void options;
    throw new Error('not implemented yet');
  }

  /** Subscribes to an engine event. Returns a function that unsubscribes. */
  on<K extends keyof DurableTimeoutsEvents>(event: K, listener: (data: DurableTimeoutsEvents[K]) => void): () => void {
    void event; void listener;
    throw new Error('not implemented yet');
  }

  /** The store in use (Redis or memory). */
  get store(): TimeoutStore {
    throw new Error('not implemented yet');
  }
}
