/**
 * `@durable-timeout/core/testing`: run the engine in unit tests without Redis. An in-memory store
 * on a manual clock (`createTestingTimeouts`, or `MemoryTimeoutStore` with `ManualClock` for a
 * custom set-up). The store contract suite is not part of the package: it lives with the tests.
 *
 * @packageDocumentation
 */
export { createTestingTimeouts, type TestingTimeouts, type TestingTimeoutsOptions } from './create-testing-timeouts.js';
export { MemoryTimeoutStore } from './memory-timeout-store.js';
export { ManualClock, type ClockListener } from './manual-clock.js';
export { InvalidClockTimeError } from './invalid-clock-time.error.js';
