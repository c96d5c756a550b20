import { describe, expect, it } from '@jest/globals';
import { InvalidConfigError } from '@durable-timeout/sample-app-support';
import { loadRidesConfig, RIDES_CONFIG_DEFAULTS } from './rides.config.js';

describe('loadRidesConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(loadRidesConfig({})).toEqual({ ...RIDES_CONFIG_DEFAULTS, INSTANCE_ID: undefined, RIDER_WEBHOOK_URL: undefined });
    expect(RIDES_CONFIG_DEFAULTS).toMatchObject({
      PORT: 3001,
      KEY_PREFIX: 'rides',
      DRIVER_MATCH_TIMEOUT_MS: 60_000,
      SEARCH_EXTENSION_MS: 60_000,
      DRIVER_ARRIVAL_TIMEOUT_MS: 600_000,
      RIDER_NO_SHOW_TIMEOUT_MS: 300_000,
      TIMEOUT_MAX_ATTEMPTS: 10,
      TIMEOUT_RETRY_BASE_MS: 1_000,
    });
  });

  it('reads the deadlines, the retry settings and the webhook', () => {
    expect(
      loadRidesConfig({
        DRIVER_MATCH_TIMEOUT_MS: '2500',
        SEARCH_EXTENSION_MS: '1000',
        DRIVER_ARRIVAL_TIMEOUT_MS: '90000',
        RIDER_NO_SHOW_TIMEOUT_MS: '120000',
        TIMEOUT_MAX_ATTEMPTS: '3',
        TIMEOUT_RETRY_BASE_MS: '50',
        RIDER_WEBHOOK_URL: 'https://notify.internal/riders',
        PORT: '0',
      }),
    ).toMatchObject({
      DRIVER_MATCH_TIMEOUT_MS: 2_500,
      SEARCH_EXTENSION_MS: 1_000,
      DRIVER_ARRIVAL_TIMEOUT_MS: 90_000,
      RIDER_NO_SHOW_TIMEOUT_MS: 120_000,
      TIMEOUT_MAX_ATTEMPTS: 3,
      TIMEOUT_RETRY_BASE_MS: 50,
      RIDER_WEBHOOK_URL: 'https://notify.internal/riders',
      PORT: 0,
    });
  });

  it.each([
    ['DRIVER_MATCH_TIMEOUT_MS', 'soon'],
    ['SEARCH_EXTENSION_MS', '10'],
    ['DRIVER_ARRIVAL_TIMEOUT_MS', '-5'],
    ['RIDER_NO_SHOW_TIMEOUT_MS', '1.5'],
    ['TIMEOUT_MAX_ATTEMPTS', '0'],
    ['TIMEOUT_RETRY_BASE_MS', '5'],
    ['RIDER_WEBHOOK_URL', 'redis://127.0.0.1'],
    ['REDIS_URL', 'mongodb://127.0.0.1'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadRidesConfig({ [name]: value })).toThrow(InvalidConfigError);
    expect(() => loadRidesConfig({ [name]: value })).toThrow(name);
  });
});
