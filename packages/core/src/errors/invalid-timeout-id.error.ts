import { DurableTimeoutError } from './durable-timeout.error.js';

/** A timeout id is not a string, is empty or is longer than `MAX_TIMEOUT_ID_LENGTH`. */
export class InvalidTimeoutIdError extends DurableTimeoutError {}
