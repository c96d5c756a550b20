import type { TimeoutStore } from '../store/timeout-store.js';
import type { DurableTimeoutsEvents, TimeoutInterceptor, TimeoutLogger } from '../types.js';
import type { EventHub } from './event-hub.js';
import type { ServerClock } from './server-clock.js';
import type { TopicLayouts } from './topic-layouts.js';

/** What the parts of the engine share: the store, events, the logger and the store clock. */
export interface EngineContext {
  readonly store: TimeoutStore;
  readonly events: EventHub<DurableTimeoutsEvents>;
  readonly logger: TimeoutLogger | null;
  readonly clock: ServerClock;
  /** Hooks around scheduling and handling, in the order they were added (see `TimeoutInterceptor`). */
  readonly interceptors: readonly TimeoutInterceptor[];
  /** Where each topic's timeouts live (slot counts, routes, slot migrations). */
  readonly layouts: TopicLayouts;
  readonly sweepIntervalMs: number;
  /** Emits `error` and logs the first failure of an outage (not every retry of it). */
  reportError(error: unknown, operation: string, topic?: string): void;
  /** A store call succeeded: ends the outage, if one was being reported. */
  reportHealthy(): void;
  /** False once the store was closed: pending retries give up. */
  readonly storeOpen: boolean;
}

/** What `engineContext` builds the context from. */
export interface EngineContextParts extends Pick<EngineContext, 'events' | 'logger' | 'clock' | 'interceptors' | 'layouts' | 'sweepIntervalMs'> {
  /** The engine's store, read anew on every use (it is replaced after a failed start). */
  readonly session: { readonly store: TimeoutStore };
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
    get store() {
      return session.store;
    },
    get storeOpen() {
      return storeOpen();
    },
    reportError: (error, operation, topic) => {
      if (storeOpen()) outage.failed(error, operation, topic);
    },
    reportHealthy: () => outage.healthy(),
  };
}
