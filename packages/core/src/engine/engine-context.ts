import type { TimeoutStore } from '../store/timeout-store.js';
import type { DurableTimeoutsEvents, TimeoutLogger } from '../types.js';
import type { EventHub } from './event-hub.js';
import type { ServerClock } from './server-clock.js';

/** What the parts of the engine share: the store, events, the logger and the store clock. */
export interface EngineContext {
  readonly store: TimeoutStore;
  readonly events: EventHub<DurableTimeoutsEvents>;
  readonly logger: TimeoutLogger | null;
  readonly clock: ServerClock;
  readonly sweepIntervalMs: number;
  /** Emits `error` and logs the first failure of an outage (not every retry of it). */
  reportError(error: unknown, operation: string, topic?: string): void;
  /** A store call succeeded: ends the outage, if one was being reported. */
  reportHealthy(): void;
  /** False once the store was closed: pending retries give up. */
  readonly storeOpen: boolean;
}
