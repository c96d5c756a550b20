import { tripsMessages } from '../trips.messages.js';

/** What Redis holds for a trip does not have the shape this app writes. */
export class CorruptTripError extends Error {
  constructor(
    readonly tripId: string,
    detail: string,
  ) {
    super(tripsMessages.corrupt(tripId, detail));
    this.name = new.target.name;
  }
}
