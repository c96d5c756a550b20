import {
  envReader,
  integer,
  loadSampleAppConfig,
  oneOf,
  SAMPLE_APP_CONFIG_DEFAULTS,
  type Environment,
  type SampleAppConfig,
} from '@durable-timeout/sample-app-support';

/** How the app keeps the payment deadline: in Redis by the module (`durable`) or in a process timer (`legacy`). */
export type TimeoutMode = 'durable' | 'legacy';

/** The timeout modes, for validation and help texts. */
export const TIMEOUT_MODES: readonly TimeoutMode[] = ['durable', 'legacy'];

/**
 * The orders app's settings, read from the environment once at start (see `loadOrdersConfig`): the
 * settings both sample apps share, plus the payment timeout and how it is kept.
 */
export interface OrdersConfig extends SampleAppConfig {
  /** Time a new order has to be paid before it moves to PAYMENT_TIMEOUT. */
  PAYMENT_TIMEOUT_MS: number;
  /** `durable` (the module) or `legacy` (an in-memory `setTimeout` per order, the old pattern). */
  TIMEOUT_MODE: TimeoutMode;
}

/** Defaults of every setting but `INSTANCE_ID`. */
export const ORDERS_CONFIG_DEFAULTS = {
  ...SAMPLE_APP_CONFIG_DEFAULTS,
  PORT: 3000,
  KEY_PREFIX: 'orders',
  PAYMENT_TIMEOUT_MS: 60_000,
  TIMEOUT_MODE: 'durable',
} as const satisfies Omit<OrdersConfig, 'INSTANCE_ID'>;

/**
 * Reads and validates the orders settings from `env` (default `process.env`), applying defaults.
 * Throws `InvalidConfigError` naming the variable to fix.
 */
export function loadOrdersConfig(env: Environment = process.env): OrdersConfig {
  const value = envReader<'PAYMENT_TIMEOUT_MS' | 'TIMEOUT_MODE'>(env);
  return {
    ...loadSampleAppConfig(env, ORDERS_CONFIG_DEFAULTS),
    PAYMENT_TIMEOUT_MS: integer(
      'PAYMENT_TIMEOUT_MS',
      value('PAYMENT_TIMEOUT_MS'),
      ORDERS_CONFIG_DEFAULTS.PAYMENT_TIMEOUT_MS,
      // Below this the timeout could fire before the order it guards is written.
      50,
      7 * 24 * 3_600_000,
    ),
    TIMEOUT_MODE: oneOf('TIMEOUT_MODE', value('TIMEOUT_MODE') ?? ORDERS_CONFIG_DEFAULTS.TIMEOUT_MODE, TIMEOUT_MODES),
  };
}
