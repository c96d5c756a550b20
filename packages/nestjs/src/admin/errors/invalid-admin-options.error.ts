import { DurableTimeoutError } from '@durable-timeout/core';

/** An option of `DurableTimeoutAdminModule` cannot work; the message names it and says what is accepted. */
export class InvalidAdminOptionsError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
