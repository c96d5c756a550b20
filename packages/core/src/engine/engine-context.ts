import type { Deliveries, ScheduleWrites, StoreReads, TimeoutStore } from '../store/timeout-store.js';
import type { DurableTimeoutsEvents, TimeoutInterceptor, TimeoutLogger } from '../types.js';
import type { EventHub } from './event-hub.js';
import type { ServerClock } from './server-clock.js';
import type { TopicLayouts } from './topic-layouts.js';
import { WakeGrid } from './wake-grid.js';

/**
 * What the parts of the engine share: the store's roles, events, the logger and the store clock.
 * Each part uses the one role it needs: scheduling `writes`, the workers' `deliveries`, `reads`;
 * `store` itself for its life (the wake-up subscription). Each is read anew on every use: the
 * engine replaces its store after a failed start.
 */
export interface EngineContext {
  /** The store's life: its wake-up subscription. */
  readonly store: Pick<TimeoutStore, 'subscribe'>;
  readonly writes: ScheduleWrites;
  readonly deliveries: Deliveries;
  readonly reads: StoreReads;
  readonly events: EventHub<DurableTimeoutsEvents>;
  readonly logger: TimeoutLogger | null;
  readonly clock: ServerClock;
  /** Hooks around scheduling and handling, in the order they were added (see `TimeoutInterceptor`). */
  readonly interceptors: readonly TimeoutInterceptor[];
  /** Where each topic's timeouts live (slot counts, routes, slot migrations). */
  readonly layouts: TopicLayouts;
  readonly sweepIntervalMs: number;
  /** The one timer of the slot pollers' sleeps (engine/wake-grid.ts); without it each poller sets its own. */
  readonly wakeGrid?: WakeGrid;
  /** Emits `error` and logs the first failure of an outage (not every retry of it). */
  reportError(error: unknown, operation: string, topic?: string): void;
  /** A store call succeeded: ends the outage, if one was being reported. */
  reportHealthy(): void;
  /** False once the store was closed: pending retries give up. */
  readonly storeOpen: boolean;
  /**
   * The preamble of every call on a topic: the store knows the topics (the engine's lazy init, once),
   * then, by `layout`: `record` records the topic's slot count when it has none yet
   * (`TopicLayouts.recordLayout`: `schedule`, `scheduleMany`); `await` waits for a recording under
   * way (`get`, `cancel`, `cancelMany`: calls on an id stay in call order); `none` waits for no
   * recording (counts, listings and dead-letter actions read every slot there is).
   */
  ensureInit(topic: string, layout: LayoutWait): Promise<void>;
}

/** What a call on a topic waits for about the topic's slot count (see `EngineContext.ensureInit`). */
export type LayoutWait = 'record' | 'await' | 'none';

/** What `engineContext` builds the context from. */
export interface EngineContextParts extends Pick<EngineContext, 'events' | 'logger' | 'clock' | 'interceptors' | 'layouts' | 'sweepIntervalMs'> {
  /** The engine's store, read anew on every use (it is replaced after a failed start), and its one-time init. */
  readonly session: { readonly store: TimeoutStore; init(): Promise<void> };
  /** Where store failures and recoveries are reported. */
  readonly outage: { failed(error: unknown, operation: string, topic?: string): void; healthy(): void };
  /** False once the engine closed the store. */
  storeOpen(): boolean;
}

/** The context the engine's parts share. Calls cut off by closing the store at shutdown fail as expected: not an outage. */
export function engineContext(parts: EngineContextParts): EngineContext {
  const { session, outage, storeOpen, ...shared } = parts;
  return {
    ...shared,
    wakeGrid: new WakeGrid(),
    get store() {
      return session.store;
    },
    get writes() {
      return session.store.writes;
    },
    get deliveries() {
      return session.store.deliveries;
    },
    get reads() {
      return session.store.reads;
    },
    get storeOpen() {
      return storeOpen();
    },
    reportError: (error, operation, topic) => {
      if (storeOpen()) outage.failed(error, operation, topic);
    },
    reportHealthy: () => outage.healthy(),
    ensureInit: async (topic, layout) => {
      await session.init();
      if (layout === 'record') await shared.layouts.recordLayout(topic);
      else if (layout === 'await') await shared.layouts.layoutRecorded(topic);
    },
  };
}
