import { envReader, integer, oneOf, prefix, redisUrl, type Environment } from './env-parsers.js';

/** How an app keeps its deadline: in Redis by the module (`durable`) or in a process timer (`legacy`). */
export type TimeoutMode = 'durable' | 'legacy';

/** The timeout modes, for validation and help texts. */
export const TIMEOUT_MODES: readonly TimeoutMode[] = ['durable', 'legacy'];

/** The settings both sample apps read; each app adds its own timeout (see `loadSampleAppConfig`). */
export interface SampleAppConfig {
  /** Redis holding the app's records and the durable timeouts. */
  REDIS_URL: string;
  /** HTTP port. */
  PORT: number;
  /** `durable` (the module) or `legacy` (an in-memory `setTimeout` per record, the old pattern). */
  TIMEOUT_MODE: TimeoutMode;
  /** Prefix of the app's state keys. */
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

/** Defaults both apps share; each app adds its `PORT` and `KEY_PREFIX`. */
export const SAMPLE_APP_CONFIG_DEFAULTS = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TIMEOUT_MODE: 'durable',
  DT_PREFIX: 'dt',
  DRAIN_MS: 10_000,
  TIMEOUT_LEASE_MS: 30_000,
} as const satisfies Partial<SampleAppConfig>;

/**
 * Reads and validates the shared settings from `env`, applying `defaults` (every shared setting
 * but `INSTANCE_ID`). Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadSampleAppConfig(env: Environment, defaults: Omit<SampleAppConfig, 'INSTANCE_ID'>): SampleAppConfig {
  const value = envReader<keyof SampleAppConfig>(env);
  return {
    REDIS_URL: redisUrl('REDIS_URL', value('REDIS_URL') ?? defaults.REDIS_URL),
    PORT: integer('PORT', value('PORT'), defaults.PORT, 0, 65_535),
    TIMEOUT_MODE: oneOf('TIMEOUT_MODE', value('TIMEOUT_MODE') ?? defaults.TIMEOUT_MODE, TIMEOUT_MODES),
    KEY_PREFIX: prefix('KEY_PREFIX', value('KEY_PREFIX') ?? defaults.KEY_PREFIX),
    DT_PREFIX: prefix('DT_PREFIX', value('DT_PREFIX') ?? defaults.DT_PREFIX),
    DRAIN_MS: integer('DRAIN_MS', value('DRAIN_MS'), defaults.DRAIN_MS, 0, 600_000),
    TIMEOUT_LEASE_MS: integer('TIMEOUT_LEASE_MS', value('TIMEOUT_LEASE_MS'), defaults.TIMEOUT_LEASE_MS, 100, 3_600_000),
    INSTANCE_ID: value('INSTANCE_ID'),
  };
}
