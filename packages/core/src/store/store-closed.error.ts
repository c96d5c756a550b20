import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/** A store method was called after `close()`. Create a new store instead. */
export class StoreClosedError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
