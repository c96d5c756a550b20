import { DurableTimeoutError } from '@durable-timeout/core';

/** `DurableTimeoutAdminModule` was given neither a guard nor a token: it refuses to mount an open page. */
export class AdminNotProtectedError extends DurableTimeoutError {
  constructor(message: string) {
    super(message);
  }
}
