export * from './types.js';
export * from './durable-timeouts.js';
export type * from './store/timeout-store.js';
export { MemoryTimeoutStore, ManualClock, InvalidClockTimeError, type ClockListener } from './testing/index.js';
