/**
 * `@durable-timeout/nestjs/testing`: `DurableTimeoutTestingModule` runs your `@OnTimeout` handlers
 * on an in-memory store with a manual clock (`TimeoutTestingClock`), without Redis.
 *
 * @packageDocumentation
 */
export { DurableTimeoutTestingModule, type DurableTimeoutTestingOptions } from './durable-timeout-testing.module.js';
export { TimeoutTestingClock } from './timeout-testing.clock.js';
export { DURABLE_TIMEOUT_TESTING_CLOCK } from './timeout-testing.constants.js';
