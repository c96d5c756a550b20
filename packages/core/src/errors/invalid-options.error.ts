import { DurableTimeoutError } from './durable-timeout.error.js';

/** An option of `new DurableTimeouts(...)` (or of a method) is invalid; the message names it and says what is accepted. */
export class InvalidOptionsError extends DurableTimeoutError {}
