/** The demo's error classes. */
export { DemoUsageError } from './demo-usage.error.js';
export { InstanceStartError } from './instance-start.error.js';
export { NoLiveInstanceError } from './no-live-instance.error.js';
export { RedisUnreachableError } from './redis-unreachable.error.js';
