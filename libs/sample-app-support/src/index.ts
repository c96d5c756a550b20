export { configMessages } from './config/config.messages.js';
export {
  loadSampleAppConfig,
  SAMPLE_APP_CONFIG_DEFAULTS,
  type SampleAppConfig,
  type TimeoutMode,
} from './config/sample-app-config.js';
export { envReader, integer, oneOf, prefix, redisUrl, type Environment } from './config/env-parsers.js';
export { HealthController } from './health/health.controller.js';
export { InvalidConfigError } from './errors/invalid-config.error.js';
export { StateUnavailableError, reachRedis } from './errors/state-unavailable.error.js';
export { ServiceUnavailableFilter } from './http/service-unavailable.filter.js';
export { APP_NAME, ShutdownLogger } from './lifecycle/shutdown.logger.js';
export { redisMessages } from './redis/redis.messages.js';
export { RedisHealthIndicator } from './redis/redis.health.js';
export { REDIS_CLIENT, RedisClientCloser, redisClientProvider, type RedisClientConfig } from './redis/redis-client.providers.js';
export { eventually } from './testing/eventually.js';
