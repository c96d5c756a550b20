import {
  envReader,
  integer,
  loadSampleAppConfig,
  SAMPLE_APP_CONFIG_DEFAULTS,
  type Environment,
  type SampleAppConfig,
} from '@durable-timeout/sample-app-support';

export type { TimeoutMode } from '@durable-timeout/sample-app-support';

/**
 * The rides app's settings, read from the environment once at start (see `loadRidesConfig`): the
 * settings both sample apps share, plus the driver-match timeout.
 */
export interface RidesConfig extends SampleAppConfig {
  /** Time a new trip waits for a driver before it moves to DRIVER_NOT_FOUND. */
  DRIVER_MATCH_TIMEOUT_MS: number;
}

/** Defaults of every setting but `INSTANCE_ID`. */
export const RIDES_CONFIG_DEFAULTS = {
  ...SAMPLE_APP_CONFIG_DEFAULTS,
  PORT: 3001,
  KEY_PREFIX: 'rides',
  DRIVER_MATCH_TIMEOUT_MS: 60_000,
} as const satisfies Omit<RidesConfig, 'INSTANCE_ID'>;

/**
 * Reads and validates the rides settings from `env` (default `process.env`), applying defaults.
 * Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadRidesConfig(env: Environment = process.env): RidesConfig {
  return {
    ...loadSampleAppConfig(env, RIDES_CONFIG_DEFAULTS),
    DRIVER_MATCH_TIMEOUT_MS: integer(
      'DRIVER_MATCH_TIMEOUT_MS',
      envReader<'DRIVER_MATCH_TIMEOUT_MS'>(env)('DRIVER_MATCH_TIMEOUT_MS'),
      RIDES_CONFIG_DEFAULTS.DRIVER_MATCH_TIMEOUT_MS,
      // Below this the timeout could fire before the trip it guards is written.
      50,
      7 * 24 * 3_600_000,
    ),
  };
}
