import type { DurableTimeoutsOptions } from '@durable-timeout/core';

/**
 * Options of `DurableTimeoutModule.forRoot` (or returned by the `forRootAsync` factory): exactly
 * the engine's options (`connection`, `prefix`, `topics`, `sweepIntervalMs`, `commandTimeoutMs`,
 * `drainMs`, ...), validated by the engine with its defaults. `logger` defaults to Nest's `Logger`
 * (context `DurableTimeouts`). `drainMs` is how long `beforeApplicationShutdown` waits for
 * running handlers before releasing their timeouts to other instances.
 */
export interface DurableTimeoutModuleOptions<TTopics extends string = string> extends DurableTimeoutsOptions<TTopics> {}

/** Extra options of `forRoot` / `forRootAsync` that shape the Nest module itself. */
export interface DurableTimeoutModuleExtras {
  /** Register the module globally, so every module can inject `TimeoutScheduler`. Default false. */
  isGlobal?: boolean;
}

/** The module's settings after defaults are applied; computed once from the options. */
export interface DurableTimeoutSettings {
  /** Names of the configured topics. */
  topics: readonly string[];
  /** Drain budget of shutdown, ms. */
  drainMs: number;
  /** The engine's backstop sweep interval, ms (the health indicator derives its poller threshold from it). */
  sweepIntervalMs: number;
  /** How long one Redis command may take before it fails, ms (the health indicator bounds its checks with it). */
  commandTimeoutMs: number;
  /** Whether the orchestrator starts slot pollers at bootstrap; false in the testing module (a manual clock fires). */
  startPollers: boolean;
}
