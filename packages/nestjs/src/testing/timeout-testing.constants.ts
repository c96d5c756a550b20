/** Injection token of the testing module's engine, clock and in-memory store (`createTestingTimeouts` of the core). */
export const DURABLE_TIMEOUT_TESTING = 'durable-timeout:testing';

/** Injection token of the testing module's `ManualClock`. */
export const DURABLE_TIMEOUT_TESTING_CLOCK = 'durable-timeout:testing-clock';

/** Most rounds of `fireDue` in one `advanceBy`: handlers that keep scheduling due-now timeouts stop here. */
export const MAX_FIRE_ROUNDS = 1_000;
