/**
 * The Redis storage of the engine and its helpers, for `src/index.ts` to re-export. The contract
 * suite (`timeout-store.contract.ts`) is left out on purpose: it needs Jest's globals.
 */
export { RedisTimeoutStore, MAX_STORED_ERROR_LENGTH, truncateError, type RedisTimeoutStoreOptions } from './redis-timeout-store.js';
export { aclRulesFor, REDIS_STORE_COMMANDS, type AclRulesOptions } from './redis-acl.js';
export { StoreClosedError } from './store-closed.error.js';
export { RedisUnavailableError } from './redis-unavailable.error.js';
export { RedisReplyError } from './redis-reply.error.js';
export { InvalidStoreOptionError } from './invalid-store-option.error.js';
export { slotOf, crc32, bucketOf, DATA_BUCKETS } from './slot-of.js';
export { TimeoutKeys, type SlotKeys } from './timeout-keys.js';
export { isRedisClient, isCluster, type RedisClient } from './redis-connection.js';
