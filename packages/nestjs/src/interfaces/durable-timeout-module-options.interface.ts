import type { DurableTimeoutsOptions, TopicName, TopicOptions } from '@durable-timeout/core';

/**
 * Options of `DurableTimeoutModule.forRoot` (or returned by the `forRootAsync` factory): exactly
 * the engine's options (`connection`, `prefix`, `topics`, `sweepIntervalMs`, `commandTimeoutMs`,
 * `drainMs`, ...), validated by the engine with its defaults. `logger` defaults to Nest's `Logger`
 * (context `DurableTimeouts`). `drainMs` is how long `beforeApplicationShutdown` waits for
 * running handlers before releasing their timeouts to other instances.
 */
export interface DurableTimeoutModuleOptions<TTopics = any> extends Omit<DurableTimeoutsOptions<TTopics>, 'topics'> {
  /**
   * The topics this module's engine knows, with their settings. May be left out when feature
   * modules declare every topic with `DurableTimeoutModule.forFeature`; the engine takes the
   * topics of both.
   */
  topics?: DurableTimeoutsOptions<TTopics>['topics'];
}

/**
 * Options of `DurableTimeoutModule.forFeature`: the topics this feature module declares, with
 * their options (`maxAttempts`, `backoff`, `leaseMs`, ...) as in `forRoot`. `TTopics` as for
 * `DurableTimeouts`: with a map of topic name to payload type, every one of its topics needs options.
 */
export interface DurableTimeoutFeatureOptions<TTopics = any> {
  /** The feature's topics and their options, e.g. `{ payment: { maxAttempts: 5 } }`. */
  topics: Record<TopicName<TTopics>, TopicOptions> & Record<TTopics & string, TopicOptions>;
}

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
