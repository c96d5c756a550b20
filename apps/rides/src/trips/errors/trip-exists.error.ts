import { tripsMessages } from '../trips.messages.js';

/** A trip with this id already exists (ids are random UUIDs: never expected). */
export class TripExistsError extends Error {
  constructor(readonly tripId: string) {
    super(tripsMessages.alreadyExists(tripId));
    this.name = new.target.name;
  }
}
