import { ENGINE_DEFAULTS, MAX_DRAIN_MS, TOPIC_DEFAULTS } from '@durable-timeout/core';
import { envReader, integer, prefix, redisUrl, secret, type Environment } from './env-parsers.js';

/** The settings both sample apps read; each app adds its own timeouts (see `loadSampleAppConfig`). */
export interface SampleAppConfig {
  /** Redis holding the app's records and the durable timeouts. */
  REDIS_URL: string;
  /** HTTP port. */
  PORT: number;
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
  /** Token of the admin page at `/timeouts` (at least 16 characters); unset: no admin page. */
  ADMIN_TOKEN?: string | undefined;
}

/** Defaults both apps share (the library's own where it has one); each app adds its `PORT` and `KEY_PREFIX`. */
export const SAMPLE_APP_CONFIG_DEFAULTS = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  DT_PREFIX: ENGINE_DEFAULTS.prefix,
  DRAIN_MS: ENGINE_DEFAULTS.drainMs,
  TIMEOUT_LEASE_MS: TOPIC_DEFAULTS.leaseMs,
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
    KEY_PREFIX: prefix('KEY_PREFIX', value('KEY_PREFIX') ?? defaults.KEY_PREFIX),
    DT_PREFIX: prefix('DT_PREFIX', value('DT_PREFIX') ?? defaults.DT_PREFIX),
    DRAIN_MS: integer('DRAIN_MS', value('DRAIN_MS'), defaults.DRAIN_MS, 0, MAX_DRAIN_MS),
    TIMEOUT_LEASE_MS: integer('TIMEOUT_LEASE_MS', value('TIMEOUT_LEASE_MS'), defaults.TIMEOUT_LEASE_MS, 100, 3_600_000),
    INSTANCE_ID: value('INSTANCE_ID'),
    ADMIN_TOKEN: secret('ADMIN_TOKEN', value('ADMIN_TOKEN'), 16),
  };
}
