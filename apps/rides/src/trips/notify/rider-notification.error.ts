import { tripsMessages } from '../trips.messages.js';

/**
 * The rider webhook did not accept a notice. Thrown by a timeout handler, it makes the module
 * retry the timeout with backoff; its message is the dead letter's `lastError` after the last attempt.
 */
export class RiderNotificationError extends Error {
  constructor(
    readonly tripId: string,
    reason: string,
  ) {
    super(tripsMessages.notificationFailed(tripId, reason));
    this.name = new.target.name;
  }
}
