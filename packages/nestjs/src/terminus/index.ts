/**
 * `@durable-timeout/nestjs/terminus`: the health indicator for `@nestjs/terminus` (an optional
 * peer, imported by this entry point only).
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MAX_OVERDUE_MS,
  DurableTimeoutHealthIndicator,
  type DurableTimeoutHealthDetails,
  type DurableTimeoutHealthOptions,
  type TopicHealthDetails,
} from './durable-timeout.health.js';
export { DurableTimeoutHealthModule } from './durable-timeout-health.module.js';
