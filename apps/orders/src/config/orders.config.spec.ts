import { describe, expect, it } from '@jest/globals';
import { InvalidConfigError } from '@durable-timeout/sample-app-support';
import { loadOrdersConfig, ORDERS_CONFIG_DEFAULTS } from './orders.config.js';

describe('loadOrdersConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(loadOrdersConfig({})).toEqual({ ...ORDERS_CONFIG_DEFAULTS, INSTANCE_ID: undefined });
    expect(ORDERS_CONFIG_DEFAULTS).toMatchObject({ PORT: 3000, PAYMENT_TIMEOUT_MS: 60_000, TIMEOUT_MODE: 'durable', KEY_PREFIX: 'orders', DT_PREFIX: 'dt', DRAIN_MS: 10_000 });
  });

  it('reads every variable, trimming blanks and accepting the mode in any case', () => {
    const config = loadOrdersConfig({
      REDIS_URL: 'rediss://user:secret@redis.internal:6380/2',
      PORT: ' 8080 ',
      PAYMENT_TIMEOUT_MS: '5000',
      TIMEOUT_MODE: 'LEGACY',
      KEY_PREFIX: 'shop.orders',
      DT_PREFIX: 'dt-shop',
      DRAIN_MS: '0',
      TIMEOUT_LEASE_MS: '1500',
      INSTANCE_ID: 'orders-2',
    });
    expect(config).toEqual({
      REDIS_URL: 'rediss://user:secret@redis.internal:6380/2',
      PORT: 8080,
      PAYMENT_TIMEOUT_MS: 5_000,
      TIMEOUT_MODE: 'legacy',
      KEY_PREFIX: 'shop.orders',
      DT_PREFIX: 'dt-shop',
      DRAIN_MS: 0,
      TIMEOUT_LEASE_MS: 1_500,
      INSTANCE_ID: 'orders-2',
    });
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '70000'],
    ['PAYMENT_TIMEOUT_MS', '-1'],
    ['PAYMENT_TIMEOUT_MS', '1e3'],
    ['PAYMENT_TIMEOUT_MS', '10'],
    ['TIMEOUT_MODE', 'sleepy'],
    ['KEY_PREFIX', 'has space'],
    ['DT_PREFIX', 'a{b}'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['REDIS_URL', 'not a url'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadOrdersConfig({ [name]: value })).toThrow(InvalidConfigError);
    expect(() => loadOrdersConfig({ [name]: value })).toThrow(name);
  });

  it('never repeats a Redis URL in its error, since it may hold a password', () => {
    expect(() => loadOrdersConfig({ REDIS_URL: 'http://user:hunter2@host' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
