export { DurableTimeoutModule } from './durable-timeout.module.js';
export {
  DURABLE_TIMEOUT_MODULE_OPTIONS,
  type DurableTimeoutModuleAsyncOptions,
  type DurableTimeoutModuleRootOptions,
} from './durable-timeout-module.definition.js';
export { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS, ON_TIMEOUT_METADATA } from './durable-timeout.constants.js';
export { OnTimeout } from './decorators/index.js';
export { TimeoutScheduler } from './timeout.scheduler.js';
export { NestTimeoutLogger } from './nest-timeout.logger.js';
export * from './errors/index.js';
export type * from './interfaces/index.js';
export type {
  CancelResult,
  DeadLetter,
  JsonValue,
  ScheduleOptions,
  ScheduleResult,
  TimeoutEvent,
  TimeoutInfo,
  TopicOptions,
  TopicStats,
} from '@durable-timeout/core';
