import { SetMetadata } from '@nestjs/common';
import type { JsonValue, TimeoutEvent, TopicName, TopicPayload } from '@durable-timeout/core';
import { ON_TIMEOUT_METADATA } from '../durable-timeout.constants.js';
import type { RegisteredTopics } from '../typed-topics.js';

/** A method `@OnTimeout` accepts for a topic whose payload type is `TPayload`. */
export type OnTimeoutMethod<TPayload> = (event: TimeoutEvent<TPayload>) => unknown;

/**
 * What the compiler reports when a method decorated with `@OnTimeout(topic)` takes the event of
 * another payload type: a property this message names is "missing" from the method's descriptor.
 */
export interface OnTimeoutPayloadMismatch<TPayload> {
  /** Never present: its name is the message. */
  readonly '@OnTimeout: the method must take TimeoutEvent<payload of this topic>, or the untyped TimeoutEvent': TimeoutEvent<TPayload>;
}

/**
 * Whether method `M` can take the event of a topic whose payload is `TPayload`: its parameter
 * must accept `TimeoutEvent<TPayload>` or the untyped `TimeoutEvent`. Checked on the parameter
 * itself rather than by comparing function types, so it holds without `strictFunctionTypes`
 * (which `nest new` projects on TypeScript 5 do not set), where parameters compare both ways.
 */
export type OnTimeoutCheck<M, TPayload> = M extends (...args: infer A) => unknown
  ? A extends []
    ? unknown
    : [TimeoutEvent<TPayload>] extends [A[0]]
      ? unknown
      : [TimeoutEvent<JsonValue>] extends [A[0]]
        ? unknown
        : OnTimeoutPayloadMismatch<TPayload>
  : unknown;

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
): <M extends (event: never) => unknown>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M> & OnTimeoutCheck<M, TopicPayload<RegisteredTopics, K>>,
) => void {
  return SetMetadata(ON_TIMEOUT_METADATA, topic);
}
