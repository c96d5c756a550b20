import type { ResolvedTopicOptions, TimeoutHandler } from '../types.js';
import { drainWorkers, type DrainOutcome } from './drain.js';
import type { EngineContext } from './engine-context.js';
import { TopicWorker } from './topic-worker.js';

/**
 * The topic workers of one engine (one per handled topic) and what concerns them all: wake-up
 * subscriptions routed to the right worker, starting their pollers, the timer that catches missed
 * slot-layout notices, `fireDue`, the health figures and the drain at shutdown.
 */
export class TopicWorkers {
  private readonly workers = new Map<string, TopicWorker>();
  private readonly unsubscribers: (() => Promise<void>)[] = [];
  private layoutTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly context: EngineContext,
    /** The engine's state: pollers start only while it runs; a subscription made while it stops is undone. */
    private readonly engine: { running(): boolean; stopping(): boolean },
  ) {
    context.layouts.onChange((topic) => this.workers.get(topic)?.resize());
  }

  /** The handled topics, in the order their handlers were registered. */
  get topics(): string[] {
    return [...this.workers.keys()];
  }

  has(topic: string): boolean {
    return this.workers.has(topic);
  }

  /** A worker for a newly handled topic (not started). */
  add(topic: string, options: ResolvedTopicOptions, handler: TimeoutHandler<unknown>): TopicWorker {
    const worker = new TopicWorker(this.context, topic, options, handler);
    this.workers.set(topic, worker);
    return worker;
  }

  /**
   * Starts the worker of a topic whose handler came while the engine runs: once the topic's slot
   * count is recorded and its wake-ups are subscribed. Without wake-ups the sweep still fires
   * everything, only later; without a recorded slot count (Redis away, or another count recorded)
   * it does not start. Failures are reported as store errors.
   */
  startLate(topic: string, worker: TopicWorker): void {
    const { layouts, reportError } = this.context;
    const startWorker = () => {
      if (this.engine.running()) worker.start();
    };
    layouts.recordLayout(topic).then(
      () =>
        this.subscribe([topic]).then(startWorker, (error: unknown) => {
          reportError(error, 'subscribe', topic);
          startWorker();
        }),
      (error: unknown) => reportError(error, 'start', topic),
    );
  }

  /**
   * Subscribes the topics' wake-ups, a re-sweep after a lost subscription, layout notices and the
   * cancels of firing timeouts to their workers. A subscription made while the engine stops is undone at once.
   */
  async subscribe(topics: readonly string[]): Promise<void> {
    const { store, layouts } = this.context;
    const unsubscribe = await store.subscribe(
      topics,
      (slot, dueAt) => this.workers.get(slot.topic)?.wake(slot.slot, dueAt),
      () => {
        for (const worker of this.workers.values()) worker.sweepNow();
      },
      (topic) => layouts.refreshSoon(topic),
      (topic, id, fencingToken) => this.workers.get(topic)?.cancelRunning(id, fencingToken),
    );
    if (this.engine.stopping()) await unsubscribe().catch(() => undefined);
    else this.unsubscribers.push(unsubscribe);
  }

  /**
   * This instance's `cancel` removed the firing timeout `id`: aborts its delivery here, if one
   * runs here, without waiting for the store's notice (an engine that was never started hears none).
   */
  cancelRunning(topic: string, id: string): void {
    this.workers.get(topic)?.cancelRunning(id);
  }

  /** Starts every worker's pollers, and the timer that picks up a missed layout notice within a sweep interval. */
  startAll(): void {
    for (const worker of this.workers.values()) {
      worker.resize();
      worker.start();
    }
    // A missed layout notice (a slot migration began or ended) is picked up within a sweep interval.
    this.layoutTimer = setInterval(() => {
      for (const topic of this.workers.keys()) this.context.layouts.refreshSoon(topic);
    }, this.context.sweepIntervalMs);
    this.layoutTimer.unref();
  }

  /** Claims and runs what is due now in every slot of every worker; resolves with how many handlers ran. */
  async fireDue(): Promise<number> {
    const counts = await Promise.all(
      [...this.workers.values()].flatMap((worker) => worker.pollers.map((poller) => worker.fireDueSlot(poller.ref.slot))),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Handlers running now, and (when `running`) the longest a started poller has gone without a claim, in ms. */
  figures(running: boolean): { maxPollerIdleMs: number | null; inFlight: number; pausedTopics: string[] } {
    let maxPollerIdleMs: number | null = null;
    let inFlight = 0;
    const pausedTopics: string[] = [];
    const now = performance.now();
    for (const worker of this.workers.values()) {
      inFlight += worker.inFlight;
      if (worker.paused) pausedTopics.push(worker.topic);
      if (running && worker.active) maxPollerIdleMs = Math.max(maxPollerIdleMs ?? 0, Math.round(worker.maxPollerIdleMs(now)));
    }
    if (running && maxPollerIdleMs === null) maxPollerIdleMs = 0;
    return { maxPollerIdleMs, inFlight, pausedTopics };
  }

  /** Claims every slot of `topic` now, when this instance handles it (after a resume). */
  sweepTopic(topic: string): void {
    this.workers.get(topic)?.sweepNow();
  }

  /** Stops the layout timer and drains every worker (`drainWorkers`); resolves with what it did and what is left of the hand-back budget. */
  drain(drainMs: number, commandTimeoutMs: number): Promise<DrainOutcome> {
    clearInterval(this.layoutTimer);
    return drainWorkers([...this.workers.values()], drainMs, commandTimeoutMs, this.context.events);
  }

  /** The unsubscribe functions of the subscriptions made, handed over once (for the close). */
  takeUnsubscribers(): (() => Promise<void>)[] {
    return this.unsubscribers.splice(0);
  }
}
