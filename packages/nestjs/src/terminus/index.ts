export {
  DEFAULT_MAX_OVERDUE_MS,
  DurableTimeoutHealthIndicator,
  type DurableTimeoutHealthDetails,
  type DurableTimeoutHealthOptions,
  type TopicHealthDetails,
} from './durable-timeout.health.js';
export { DurableTimeoutHealthModule } from './durable-timeout-health.module.js';
