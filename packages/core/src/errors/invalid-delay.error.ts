import { DurableTimeoutError } from './durable-timeout.error.js';

/** The timing of `schedule` is invalid: `delayMs` negative, not finite or too large, an invalid `at`, or both or neither given. */
export class InvalidDelayError extends DurableTimeoutError {}
