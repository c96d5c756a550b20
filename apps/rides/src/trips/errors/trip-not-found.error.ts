import { tripsMessages } from '../trips.messages.js';

/** The trip id is unknown. Answered as 404. */
export class TripNotFoundError extends Error {
  constructor(readonly tripId: string) {
    super(tripsMessages.notFound(tripId));
    this.name = new.target.name;
  }
}
