import { describe, expect, it } from '@jest/globals';
import { InvalidConfigError } from '@durable-timeout/sample-app-support';
import { loadRidesConfig, RIDES_CONFIG_DEFAULTS } from './rides.config.js';

describe('loadRidesConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(loadRidesConfig({})).toEqual({ ...RIDES_CONFIG_DEFAULTS, INSTANCE_ID: undefined });
    expect(RIDES_CONFIG_DEFAULTS).toMatchObject({ PORT: 3001, DRIVER_MATCH_TIMEOUT_MS: 60_000, TIMEOUT_MODE: 'durable', KEY_PREFIX: 'rides' });
  });

  it('reads the driver-match timeout and the mode', () => {
    expect(loadRidesConfig({ DRIVER_MATCH_TIMEOUT_MS: '2500', TIMEOUT_MODE: 'legacy', PORT: '0' })).toMatchObject({
      DRIVER_MATCH_TIMEOUT_MS: 2_500,
      TIMEOUT_MODE: 'legacy',
      PORT: 0,
    });
  });

  it.each([
    ['DRIVER_MATCH_TIMEOUT_MS', 'soon'],
    ['TIMEOUT_MODE', 'cron'],
    ['REDIS_URL', 'mongodb://127.0.0.1'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadRidesConfig({ [name]: value })).toThrow(InvalidConfigError);
    expect(() => loadRidesConfig({ [name]: value })).toThrow(name);
  });
});
