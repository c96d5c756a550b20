/**
 * `@durable-timeout/nestjs`: durable timeouts in a Nest application. `DurableTimeoutModule`,
 * `@OnTimeout`, `TimeoutScheduler`, `DurableTimeoutExceptionFilter`, and the core's engine class,
 * error classes and types, so an application imports this package alone. The Terminus indicator is
 * at `@durable-timeout/nestjs/terminus`, the testing module at `@durable-timeout/nestjs/testing`.
 *
 * @packageDocumentation
 */
export { DurableTimeoutModule } from './durable-timeout.module.js';
export {
  DURABLE_TIMEOUT_MODULE_OPTIONS,
  type DurableTimeoutModuleAsyncOptions,
  type DurableTimeoutModuleRootOptions,
} from './durable-timeout-module.definition.js';
export { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS, ON_SCHEDULE_METADATA, ON_TIMEOUT_METADATA } from './durable-timeout.constants.js';
export { OnSchedule, OnTimeout, type OnScheduleMetadata, type OnTimeoutCheck, type OnTimeoutMethod, type OnTimeoutPayloadMismatch } from './decorators/index.js';
export type { DurableTimeoutTopics, RegisteredTopics } from './typed-topics.js';
export { DURABLE_TIMEOUT_FEATURE, type FeatureTopics } from './features/feature-topics.js';
export { DurableTimeoutFeatureModule } from './features/durable-timeout-feature.module.js';
export { TimeoutScheduler } from './timeout.scheduler.js';
export { NestTimeoutLogger } from './nest-timeout.logger.js';
export * from './errors/index.js';
export type * from './interfaces/index.js';
export {
  DEFAULT_RETRY_AFTER_SECONDS,
  DurableTimeoutExceptionFilter,
  type DurableTimeoutHttpError,
} from './durable-timeout-exception.filter.js';
export {
  DURABLE_TIMEOUT_HTTP_ANSWERS,
  httpAnswerOf,
  type DurableTimeoutErrorClass,
  type DurableTimeoutHttpAnswer,
} from './durable-timeout-http-errors.js';
// What a Nest application needs from the engine (its class, every error class, the payload codec,
// and below every type: options, events, results, the store port), so it imports @durable-timeout/nestjs alone.
export {
  DurableTimeouts,
  aesGcmCodec,
  InvalidCodecKeyError,
  PayloadDecodeError,
  DurableTimeoutError,
  DuplicateHandlerError,
  DurabilityUnconfirmedError,
  InvalidClockTimeError,
  InvalidConnectionError,
  InvalidDelayError,
  InvalidOptionsError,
  InvalidPayloadError,
  InvalidScheduleError,
  InvalidStoreOptionError,
  InvalidTimeoutIdError,
  PayloadTooLargeError,
  RedisReplyError,
  RedisUnavailableError,
  SlotLockedError,
  SlotMovedError,
  StoreClosedError,
  TimeoutsStoppedError,
  TopicMigratingError,
  LeaseLostError,
  HandlerTimeoutError,
  TimeoutCancelledError,
  TopicSlotsMismatchError,
  UnknownTopicError,
} from '@durable-timeout/core';
export type * from '@durable-timeout/core';
