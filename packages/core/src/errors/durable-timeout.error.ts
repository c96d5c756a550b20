/**
 * Base class of every error the packages throw: bad input or misuse (`InvalidDelayError`,
 * `UnknownTopicError`, ...), a Redis that does not answer in time (`RedisUnavailableError`) and the
 * other conditions a retry resolves (`DurabilityUnconfirmedError`, `TopicMigratingError`,
 * `TimeoutsStoppedError`). Catch it to tell the library's errors from a handler's own; check the
 * subclass to tell a caller's mistake from an outage.
 */
export class DurableTimeoutError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
