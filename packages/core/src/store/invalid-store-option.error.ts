import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/** An option of `RedisTimeoutStore` is invalid; the message names it and says what is accepted. */
export class InvalidStoreOptionError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
