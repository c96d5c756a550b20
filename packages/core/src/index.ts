/**
 * `@durable-timeout/core`: timeouts that survive restarts, kept in Redis. The engine
 * (`DurableTimeouts`), its options and event types, the store port, the Redis store's ACL helper
 * and every error class. Test helpers (in-memory store, manual clock) are at
 * `@durable-timeout/core/testing`.
 *
 * @packageDocumentation
 */
export { DurableTimeouts } from './durable-timeouts.js';
export type {
  BackoffOptions,
  CancelResult,
  ConnectionOptions,
  DeadLetter,
  DeadReason,
  DrainSummary,
  DurableTimeoutsEvents,
  DurableTimeoutsOptions,
  DurableTimeoutsSettings,
  HealthSnapshot,
  JsonValue,
  PayloadCodec,
  ScheduleOptions,
  ScheduleIfExists,
  ScheduleManyItem,
  ScheduleManyResult,
  CancelManyResult,
  ScheduleOutcome,
  ScheduleResult,
  ResolvedTopicOptions,
  RateLimitOptions,
  ResumeOptions,
  RetryReason,
  ScheduleTiming,
  StopOptions,
  TimeoutEvent,
  TimeoutHandler,
  TimeoutInfo,
  TimeoutInterceptor,
  TimeoutLogger,
  TimeoutState,
  TopicOptions,
  TopicPauseState,
  TopicResumeResult,
  TopicSlotStats,
  TopicStats,
} from './types.js';
export type { TopicName, TopicPayload, TopicsDeclaration } from './typed-topics.js';
export type { TopicScheduleManyItem, TopicScheduleOptions } from './typed-schedule.js';
export type { PageOptions } from './engine/topic-reads.js';
export { SCHEDULES_TOPIC, type RecurringSchedules, type ScheduleEngine } from './engine/recurring-schedules.js';
export type {
  CatchUpPolicy,
  RecurringScheduleInfo,
  RecurringScheduleOptions,
  RecurringScheduleResult,
  ScheduleHandler,
  ScheduleOccurrence,
} from './recurring-types.js';
export type * from './store/timeout-store.js';
// The limits every store honours (part of the store port's contract).
export { MAX_CLAIM, RECOVER_PER_CLAIM } from './store/timeout-store.js';
export * from './errors/index.js';
export * from './validation/index.js';
export { RedisTimeoutStore, type RedisTimeoutStoreOptions } from './store/redis-timeout-store.js';
export type { DurabilityOptions } from './types.js';
export { aclRulesFor, REDIS_STORE_COMMANDS, type AclRulesOptions } from './store/redis-acl.js';
export { StoreClosedError } from './store/store-closed.error.js';
export { SlotMovedError } from './store/slot-moved.error.js';
export { SlotLockedError } from './store/slot-locked.error.js';
export { slotOf } from './store/slot-of.js';
export { CONNECTION_URL_FORMS, maskPassword, parseConnectionUrl } from './store/connection-url.js';
export { LATE_ERROR, LEASE_EXPIRED_ERROR, MAX_STORED_ERROR_LENGTH } from './store/stored-error.js';
export { aesGcmCodec, type AesGcmCodecOptions } from './support/aes-gcm-codec.js';
export { migrateSlots, type SlotMigrationOptions, type SlotMigrationProgress, type SlotMigrationReport } from './engine/slot-migration.js';
