/**
 * Injection token of the module's `DurableTimeouts` engine instance, for advanced use
 * (`@Inject(DURABLE_TIMEOUTS) engine: DurableTimeouts`). Most code injects `TimeoutScheduler`.
 */
export const DURABLE_TIMEOUTS = 'durable-timeout:engine';

/** Injection token of the resolved module settings (`DurableTimeoutSettings`). */
export const DURABLE_TIMEOUT_SETTINGS = 'durable-timeout:settings';

/** Metadata key under which `@OnTimeout` stores the topic of a handler method. */
export const ON_TIMEOUT_METADATA = 'durable-timeout:on-timeout';

/** Metadata key under which `@OnSchedule` stores a method's schedule name and options. */
export const ON_SCHEDULE_METADATA = 'durable-timeout:on-schedule';

/** Context name of every log line the Nest integration writes. */
export const DURABLE_TIMEOUT_LOGGER_CONTEXT = 'DurableTimeouts';
