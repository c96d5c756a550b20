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
 * The orders app's settings, read from the environment once at start (see `loadOrdersConfig`): the
 * settings both sample apps share, plus the payment timeout.
 */
export interface OrdersConfig extends SampleAppConfig {
  /** Time a new order has to be paid before it moves to PAYMENT_TIMEOUT. */
  PAYMENT_TIMEOUT_MS: number;
}

/** Defaults of every setting but `INSTANCE_ID`. */
export const ORDERS_CONFIG_DEFAULTS = {
  ...SAMPLE_APP_CONFIG_DEFAULTS,
  PORT: 3000,
  KEY_PREFIX: 'orders',
  PAYMENT_TIMEOUT_MS: 60_000,
} as const satisfies Omit<OrdersConfig, 'INSTANCE_ID'>;

/**
 * Reads and validates the orders settings from `env` (default `process.env`), applying defaults.
 * Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadOrdersConfig(env: Environment = process.env): OrdersConfig {
  return {
    ...loadSampleAppConfig(env, ORDERS_CONFIG_DEFAULTS),
    PAYMENT_TIMEOUT_MS: integer(
      'PAYMENT_TIMEOUT_MS',
      envReader<'PAYMENT_TIMEOUT_MS'>(env)('PAYMENT_TIMEOUT_MS'),
      ORDERS_CONFIG_DEFAULTS.PAYMENT_TIMEOUT_MS,
      // Below this the timeout could fire before the order it guards is written.
      50,
      7 * 24 * 3_600_000,
    ),
  };
}
