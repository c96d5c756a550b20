import { DurableTimeoutError } from './durable-timeout.error.js';

/**
 * A payload is not plain JSON data: a function, symbol, BigInt, cycle, `undefined`, NaN or
 * Infinity, a class instance (Date, Map, Set, Buffer, ...), a `__proto__` or `constructor` key, or
 * nesting deeper than 64 levels.
 */
export class InvalidPayloadError extends DurableTimeoutError {
  constructor(
    message: string,
    /** Where in the payload the problem is, e.g. `payload.items[2].at`. */
    readonly path: string,
  ) {
    super(message);
  }
}
