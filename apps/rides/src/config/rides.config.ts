import { envReader, integer, oneOf, prefix, redisUrl, type Environment } from '@durable-timeout/sample-app-support';

/** How the driver-match deadline is kept: in Redis by the module (`durable`) or in a process timer (`legacy`). */
export type TimeoutMode = 'durable' | 'legacy';

/** The timeout modes, for validation and help texts. */
export const TIMEOUT_MODES: readonly TimeoutMode[] = ['durable', 'legacy'];

/** The rides app's settings, read from the environment once at start (see `loadRidesConfig`). */
export interface RidesConfig {
  /** Redis holding the trips and the durable timeouts. */
  REDIS_URL: string;
  /** HTTP port. */
  PORT: number;
  /** Time a new trip waits for a driver before it moves to DRIVER_NOT_FOUND. */
  DRIVER_MATCH_TIMEOUT_MS: number;
  /** `durable` (the module) or `legacy` (an in-memory `setTimeout` per trip, the old pattern). */
  TIMEOUT_MODE: TimeoutMode;
  /** Prefix of the trip state keys. */
  KEY_PREFIX: string;
  /** Prefix of the durable-timeout keys. */
  DT_PREFIX: string;
  /** How long a shutdown waits for running timeout handlers before handing their timeouts back. */
  DRAIN_MS: number;
  /** How long one instance holds a fired timeout before another may fire it again (durable mode). */
  TIMEOUT_LEASE_MS: number;
  /** Optional label of this instance, written in logs and in the transitions it applies. */
  INSTANCE_ID: string | undefined;
}

/** Defaults of every setting but `INSTANCE_ID`. */
export const RIDES_CONFIG_DEFAULTS = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  PORT: 3001,
  DRIVER_MATCH_TIMEOUT_MS: 60_000,
  TIMEOUT_MODE: 'durable',
  KEY_PREFIX: 'rides',
  DT_PREFIX: 'dt',
  DRAIN_MS: 10_000,
  TIMEOUT_LEASE_MS: 30_000,
} as const satisfies Omit<RidesConfig, 'INSTANCE_ID'>;

/**
 * Reads and validates the rides settings from `env` (default `process.env`), applying defaults.
 * Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadRidesConfig(env: Environment = process.env): RidesConfig {
  const value = envReader<keyof RidesConfig>(env);
  return {
    REDIS_URL: redisUrl('REDIS_URL', value('REDIS_URL') ?? RIDES_CONFIG_DEFAULTS.REDIS_URL),
    PORT: integer('PORT', value('PORT'), RIDES_CONFIG_DEFAULTS.PORT, 0, 65_535),
    DRIVER_MATCH_TIMEOUT_MS: integer(
      'DRIVER_MATCH_TIMEOUT_MS',
      value('DRIVER_MATCH_TIMEOUT_MS'),
      RIDES_CONFIG_DEFAULTS.DRIVER_MATCH_TIMEOUT_MS,
      // Below this the timeout could fire before the trip it guards is written.
      50,
      7 * 24 * 3_600_000,
    ),
    TIMEOUT_MODE: oneOf('TIMEOUT_MODE', value('TIMEOUT_MODE') ?? RIDES_CONFIG_DEFAULTS.TIMEOUT_MODE, TIMEOUT_MODES),
    KEY_PREFIX: prefix('KEY_PREFIX', value('KEY_PREFIX') ?? RIDES_CONFIG_DEFAULTS.KEY_PREFIX),
    DT_PREFIX: prefix('DT_PREFIX', value('DT_PREFIX') ?? RIDES_CONFIG_DEFAULTS.DT_PREFIX),
    DRAIN_MS: integer('DRAIN_MS', value('DRAIN_MS'), RIDES_CONFIG_DEFAULTS.DRAIN_MS, 0, 600_000),
    TIMEOUT_LEASE_MS: integer(
      'TIMEOUT_LEASE_MS',
      value('TIMEOUT_LEASE_MS'),
      RIDES_CONFIG_DEFAULTS.TIMEOUT_LEASE_MS,
      100,
      3_600_000,
    ),
    INSTANCE_ID: value('INSTANCE_ID'),
  };
}
