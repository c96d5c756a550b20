/**
 * Injection token of the module's `DurableTimeouts` engine instance, for advanced use
 * (`@Inject(DURABLE_TIMEOUTS) engine: DurableTimeouts`). Most code injects `TimeoutScheduler`.
 */
export const DURABLE_TIMEOUTS = 'durable-timeout:engine';

/** Injection token of the resolved module settings (`DurableTimeoutSettings`). */
export const DURABLE_TIMEOUT_SETTINGS = 'durable-timeout:settings';

/** Metadata key under which `@OnTimeout` stores the topic of a handler method. */
export const ON_TIMEOUT_METADATA = 'durable-timeout:on-timeout';

/** Context name of every log line the Nest integration writes. */
export const DURABLE_TIMEOUT_LOGGER_CONTEXT = 'DurableTimeouts';

/** Default of `drainMs`: how long shutdown waits for running handlers. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Default of `sweepIntervalMs`, the engine's backstop sweep (same value as the engine's own default). */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Default of `commandTimeoutMs` (same value as the engine's own default). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;
