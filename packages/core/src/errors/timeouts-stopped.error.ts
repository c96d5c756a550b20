import { DurableTimeoutError } from './durable-timeout.error.js';

/** A call reached an instance after `stop()`: create a new `DurableTimeouts` instead. */
export class TimeoutsStoppedError extends DurableTimeoutError {}
