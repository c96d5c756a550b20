/** Every error class of `@durable-timeout/core`, for `src/index.ts` to re-export. */
export { DurableTimeoutError } from './durable-timeout.error.js';
export { UnknownTopicError } from './unknown-topic.error.js';
export { InvalidTimeoutIdError } from './invalid-timeout-id.error.js';
export { InvalidDelayError } from './invalid-delay.error.js';
export { InvalidPayloadError } from './invalid-payload.error.js';
export { PayloadTooLargeError } from './payload-too-large.error.js';
export { TimeoutsStoppedError } from './timeouts-stopped.error.js';
export { DuplicateHandlerError } from './duplicate-handler.error.js';
export { InvalidOptionsError } from './invalid-options.error.js';
export { TopicSlotsMismatchError } from './topic-slots-mismatch.error.js';
export { TopicMigratingError } from './topic-migrating.error.js';
export { LeaseLostError } from './lease-lost.error.js';
export { HandlerTimeoutError } from './handler-timeout.error.js';
export { RedisUnavailableError } from '../store/redis-unavailable.error.js';
export { RedisReplyError } from '../store/redis-reply.error.js';
export { InvalidStoreOptionError } from '../store/invalid-store-option.error.js';
export { DurabilityUnconfirmedError } from '../store/durability-unconfirmed.error.js';
