export { DurableTimeoutTestingModule, type DurableTimeoutTestingOptions } from './durable-timeout-testing.module.js';
export { TimeoutTestingClock } from './timeout-testing.clock.js';
export { DURABLE_TIMEOUT_TESTING_CLOCK } from './timeout-testing.constants.js';
