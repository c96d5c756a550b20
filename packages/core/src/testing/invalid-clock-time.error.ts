import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/** `ManualClock` was given a time or a step it cannot take (not finite, negative, or back in time). */
export class InvalidClockTimeError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
