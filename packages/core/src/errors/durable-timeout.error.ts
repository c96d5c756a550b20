/**
 * Base class of the errors the engine throws for bad input or misuse. Catch it to tell a caller's
 * mistake from an outage (`RedisUnavailableError`) or a handler's own error.
 */
export class DurableTimeoutError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
