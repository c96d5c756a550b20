import { SetMetadata } from '@nestjs/common';
import type { JsonValue, TimeoutEvent, TopicName, TopicPayload } from '@durable-timeout/core';
import { ON_TIMEOUT_METADATA } from '../durable-timeout.constants.js';
import type { RegisteredTopics } from '../typed-topics.js';

/** A method `@OnTimeout` accepts for a topic whose payload type is `TPayload`. */
export type OnTimeoutMethod<TPayload> = (event: TimeoutEvent<TPayload>) => unknown;

/**
 * Marks a provider (or controller) method as the handler of a topic's timeouts. The method
 * receives a `TimeoutEvent<TPayload>`; returning (or resolving) acknowledges the timeout, throwing
 * (or rejecting) retries it with the topic's backoff, up to its `maxAttempts`.
 *
 * One handler per topic per application; the topic must be configured in `DurableTimeoutModule`
 * (`forRoot` or `forFeature`). The provider must be a singleton (request-scoped handlers are
 * ignored with a warning).
 *
 * When the application declares its topics in `DurableTimeoutTopics`, the topic name is checked
 * and so is the method: one whose event has another topic's payload type is a compile error.
 * (A decorator cannot give the method's parameter its type: annotate it, the compiler checks it.)
 * A method taking the untyped `TimeoutEvent` (payload `JsonValue`) is accepted for any topic.
 * The engine calls the method with the event alone: a second required parameter is refused.
 *
 * @example
 * ```ts
 * @OnTimeout('payment')
 * async onPaymentTimeout(event: TimeoutEvent<PaymentDeadline>) { ... }
 * ```
 */
export function OnTimeout<K extends TopicName<RegisteredTopics>>(
  topic: K,
): <M extends OnTimeoutMethod<TopicPayload<RegisteredTopics, K>> | OnTimeoutMethod<JsonValue>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>) => void {
  return SetMetadata(ON_TIMEOUT_METADATA, topic);
}
