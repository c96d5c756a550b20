import type { TripStatus } from '../trip.model.js';
import { tripsMessages } from '../trips.messages.js';

/** An accept reached a trip that is no longer WAITING (assigned or given up). Answered as 409. */
export class TripNotWaitingError extends Error {
  constructor(
    readonly tripId: string,
    readonly status: TripStatus,
  ) {
    super(tripsMessages.notWaiting(tripId, status));
    this.name = new.target.name;
  }
}
