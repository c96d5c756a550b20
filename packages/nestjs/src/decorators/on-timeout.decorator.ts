import { SetMetadata } from '@nestjs/common';
import { ON_TIMEOUT_METADATA } from '../durable-timeout.constants.js';

/**
 * Marks a provider (or controller) method as the handler of a topic's timeouts. The method
 * receives a `TimeoutEvent<TPayload>`; returning (or resolving) acknowledges the timeout, throwing
 * (or rejecting) retries it with the topic's backoff, up to its `maxAttempts`.
 *
 * One handler per topic per application; the topic must be configured in `DurableTimeoutModule`.
 * The provider must be a singleton (request-scoped handlers are ignored with a warning).
 *
 * @example
 * ```ts
 * @OnTimeout('payment')
 * async onPaymentTimeout(event: TimeoutEvent<{ orderId: string }>) { ... }
 * ```
 */
export const OnTimeout = (topic: string): MethodDecorator => SetMetadata(ON_TIMEOUT_METADATA, topic);
