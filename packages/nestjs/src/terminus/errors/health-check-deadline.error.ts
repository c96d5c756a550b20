import { DurableTimeoutError } from '@durable-timeout/core';

/** A health check did not finish in time (caught inside the indicator, reported as down). */
export class HealthCheckDeadlineError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
