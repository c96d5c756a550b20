/**
 * Test helpers for users of the engine: an in-memory store with a manual clock. The store
 * contract suite is left out on purpose: it needs Jest's globals.
 */
export { MemoryTimeoutStore } from './memory-timeout-store.js';
export { ManualClock, type ClockListener } from './manual-clock.js';
export { InvalidClockTimeError } from './invalid-clock-time.error.js';
