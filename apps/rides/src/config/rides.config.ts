import {
  envReader,
  httpUrl,
  integer,
  loadSampleAppConfig,
  SAMPLE_APP_CONFIG_DEFAULTS,
  type Environment,
  type SampleAppConfig,
} from '@durable-timeout/sample-app-support';

/**
 * The rides app's settings, read from the environment once at start (see `loadRidesConfig`): the
 * settings both sample apps share, the deadlines of a trip, how a failing timeout is retried, and
 * where riders are notified.
 */
export interface RidesConfig extends SampleAppConfig {
  /** Time a new trip waits for a driver before it moves to DRIVER_NOT_FOUND. */
  DRIVER_MATCH_TIMEOUT_MS: number;
  /** Time one widening of the search adds to the trip's driver-match deadline. */
  SEARCH_EXTENSION_MS: number;
  /** Time an assigned driver has to reach the pickup before the trip looks for another driver. */
  DRIVER_ARRIVAL_TIMEOUT_MS: number;
  /** Time the rider has to board once the driver is there, before the trip ends as RIDER_NO_SHOW. */
  RIDER_NO_SHOW_TIMEOUT_MS: number;
  /** Attempts of a failing timeout handler (the rider webhook down) before its timeout is dead-lettered. */
  TIMEOUT_MAX_ATTEMPTS: number;
  /** First retry delay of a failing timeout handler; it doubles per attempt (with jitter), up to 5 min. */
  TIMEOUT_RETRY_BASE_MS: number;
  /** Where riders are told that their trip ended without a ride; unset: the app only logs it. */
  RIDER_WEBHOOK_URL: string | undefined;
}

/** Defaults of every setting but `INSTANCE_ID` and `RIDER_WEBHOOK_URL`. */
export const RIDES_CONFIG_DEFAULTS = {
  ...SAMPLE_APP_CONFIG_DEFAULTS,
  PORT: 3001,
  KEY_PREFIX: 'rides',
  DRIVER_MATCH_TIMEOUT_MS: 60_000,
  SEARCH_EXTENSION_MS: 60_000,
  DRIVER_ARRIVAL_TIMEOUT_MS: 600_000,
  RIDER_NO_SHOW_TIMEOUT_MS: 300_000,
  TIMEOUT_MAX_ATTEMPTS: 10,
  TIMEOUT_RETRY_BASE_MS: 1_000,
} as const satisfies Omit<RidesConfig, 'INSTANCE_ID' | 'RIDER_WEBHOOK_URL'>;

type RidesVariable = Exclude<keyof RidesConfig, keyof SampleAppConfig>;

const WEEK_MS = 7 * 24 * 3_600_000;

/**
 * Reads and validates the rides settings from `env` (default `process.env`), applying defaults.
 * Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadRidesConfig(env: Environment = process.env): RidesConfig {
  const value = envReader<RidesVariable>(env);
  // Below 50 ms a deadline could fire before the write of the trip it guards.
  const deadline = (name: Exclude<RidesVariable, 'TIMEOUT_MAX_ATTEMPTS' | 'TIMEOUT_RETRY_BASE_MS' | 'RIDER_WEBHOOK_URL'>) =>
    integer(name, value(name), RIDES_CONFIG_DEFAULTS[name], 50, WEEK_MS);
  const webhook = value('RIDER_WEBHOOK_URL');
  return {
    ...loadSampleAppConfig(env, RIDES_CONFIG_DEFAULTS),
    DRIVER_MATCH_TIMEOUT_MS: deadline('DRIVER_MATCH_TIMEOUT_MS'),
    SEARCH_EXTENSION_MS: deadline('SEARCH_EXTENSION_MS'),
    DRIVER_ARRIVAL_TIMEOUT_MS: deadline('DRIVER_ARRIVAL_TIMEOUT_MS'),
    RIDER_NO_SHOW_TIMEOUT_MS: deadline('RIDER_NO_SHOW_TIMEOUT_MS'),
    TIMEOUT_MAX_ATTEMPTS: integer('TIMEOUT_MAX_ATTEMPTS', value('TIMEOUT_MAX_ATTEMPTS'), RIDES_CONFIG_DEFAULTS.TIMEOUT_MAX_ATTEMPTS, 1, 100),
    TIMEOUT_RETRY_BASE_MS: integer('TIMEOUT_RETRY_BASE_MS', value('TIMEOUT_RETRY_BASE_MS'), RIDES_CONFIG_DEFAULTS.TIMEOUT_RETRY_BASE_MS, 10, 300_000),
    RIDER_WEBHOOK_URL: webhook === undefined ? undefined : httpUrl('RIDER_WEBHOOK_URL', webhook),
  };
}
