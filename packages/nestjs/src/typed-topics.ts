/**
 * The application's topics and their payload types, for the Nest integration to check. Empty
 * here: a feature declares its own topics by augmenting it, next to the code that uses them.
 *
 * ```ts
 * declare module '@durable-timeout/nestjs' {
 *   interface DurableTimeoutTopics {
 *     payment: PaymentDeadline;
 *   }
 * }
 * ```
 *
 * Once one topic is declared, `TimeoutScheduler` (without a type argument) refuses unknown topic
 * names and payloads of the wrong shape at compile time, and `@OnTimeout('payment')` checks that the
 * decorated method takes a `TimeoutEvent<PaymentDeadline>`. Payload types describe JSON (what the
 * handler receives after a round trip through Redis). Left empty, everything stays untyped.
 */
export interface DurableTimeoutTopics {}

/**
 * The topics declared in `DurableTimeoutTopics`, or `any` (untyped) while none is: the default
 * type argument of `TimeoutScheduler` and what `@OnTimeout` checks against.
 */
export type RegisteredTopics = keyof DurableTimeoutTopics extends never ? any : DurableTimeoutTopics;
