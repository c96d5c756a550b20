import { randomUUID } from 'node:crypto';
import type { SampleAppConfig } from '../config/sample-app-config.js';

/**
 * The settings an e2e test gives every instance of one app: the test's Redis, key prefixes of its
 * own (so instances of one test share state and timeouts, and tests do not see each other's), a
 * short lease and drain so a stopped instance hands its work over quickly.
 */
export function testSettings(redisUrl: string, app: string): Pick<SampleAppConfig, 'REDIS_URL' | 'KEY_PREFIX' | 'DT_PREFIX' | 'TIMEOUT_LEASE_MS' | 'DRAIN_MS'> {
  const tag = randomUUID().slice(0, 8);
  return { REDIS_URL: redisUrl, KEY_PREFIX: `${app}-${tag}`, DT_PREFIX: `dt-${tag}`, TIMEOUT_LEASE_MS: 2_000, DRAIN_MS: 1_000 };
}
