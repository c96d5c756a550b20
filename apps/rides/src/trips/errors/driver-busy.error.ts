import { tripsMessages } from '../trips.messages.js';

/** The driver who tries to accept is already assigned to another trip. Answered as 409. */
export class DriverBusyError extends Error {
  constructor(
    readonly driverId: string,
    readonly assignedTripId: string,
  ) {
    super(tripsMessages.driverBusy(driverId, assignedTripId));
    this.name = new.target.name;
  }
}
