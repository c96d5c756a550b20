export * from './types.js';
export * from './durable-timeouts.js';
export type * from './store/timeout-store.js';
export { MemoryTimeoutStore, ManualClock, InvalidClockTimeError, type ClockListener } from './testing/index.js';
export * from './errors/index.js';
export * from './validation/index.js';
export { createTestingTimeouts, type TestingTimeouts, type TestingTimeoutsOptions } from './testing/create-testing-timeouts.js';
export { RedisTimeoutStore, aclRulesFor, REDIS_STORE_COMMANDS, StoreClosedError, type AclRulesOptions, type RedisTimeoutStoreOptions } from './store/index.js';
