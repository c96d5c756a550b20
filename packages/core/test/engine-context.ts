import { EventHub } from '../src/engine/event-hub.js';
import type { EngineContext } from '../src/engine/engine-context.js';
import { ServerClock } from '../src/engine/server-clock.js';
import { TopicLayouts } from '../src/engine/topic-layouts.js';
import type { TimeoutStore } from '../src/store/timeout-store.js';

/**
 * The context the engine's parts share, for unit specs of one part: `store` (often a stub with
 * only the calls the part makes), topic `payment` with `slots` slots, no logger, errors dropped
 * unless `overrides` says otherwise.
 */
export function engineContext(store: TimeoutStore, slots = 16, overrides: Partial<EngineContext> = {}): EngineContext {
  const layouts = new TopicLayouts(() => store.layout, new Map([['payment', slots]]), 1_000);
  return {
    store,
    writes: store.writes,
    deliveries: store.deliveries,
    reads: store.reads,
    events: new EventHub(() => undefined),
    logger: null,
    clock: new ServerClock(),
    interceptors: [],
    layouts,
    sweepIntervalMs: 60_000,
    reportError: () => undefined,
    reportHealthy: () => undefined,
    storeOpen: true,
    ensureInit: async (topic, writes) => (writes ? layouts.recordLayout(topic) : layouts.layoutRecorded(topic)),
    ...overrides,
  };
}
