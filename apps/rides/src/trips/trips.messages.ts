import type { TripStatus } from './trip.model.js';

/** Text of the trips errors and log lines, built in one place. Never includes rider locations. */
export const tripsMessages = {
  notFound: (id: string) => `Trip ${id} does not exist. Check the id returned by POST /trips.`,
  notWaiting: (id: string, status: TripStatus) =>
    status === 'ASSIGNED'
      ? `Trip ${id} already has a driver (ASSIGNED); this driver stays free. Offer them another trip.`
      : `Trip ${id} is ${status}: it stopped waiting for a driver before this accept arrived; this driver stays free.`,
  driverBusy: (driverId: string, tripId: string) =>
    `Driver ${driverId} is already assigned to trip ${tripId}; finish that trip before accepting another.`,
  alreadyExists: (id: string) => `Trip ${id} already exists; ids are generated per trip, so this is a bug. Retry the request.`,
  corrupt: (id: string, detail: string) =>
    `Trip ${id} is unreadable in Redis (${detail}). Inspect or delete its keys; the app never writes this shape.`,
  created: (id: string, dueAt: string) => `trip ${id} waiting for a driver until ${dueAt}`,
  assigned: (id: string, driverId: string) => `trip ${id} assigned to driver ${driverId}`,
  timedOut: (id: string, attempt: number, fencingToken: number) =>
    `trip ${id}: no driver found (attempt ${attempt}, fencing token ${fencingToken})`,
  timeoutIgnored: (id: string, status: TripStatus) => `driver-match timeout of trip ${id} ignored: the trip is already ${status}`,
  timeoutForMissingTrip: (id: string) => `driver-match timeout of trip ${id} ignored: no such trip (its creation failed)`,
  cancelFailed: (id: string, reason: string) =>
    `trip ${id} assigned, but its driver-match timeout could not be cancelled (${reason}); it will fire and change nothing`,
  timeoutCancelResult: (id: string, result: string) => `driver-match timeout of trip ${id}: ${result}`,
  legacyExpiryFailed: (id: string, reason: string) =>
    `driver-match timeout of trip ${id} failed (${reason}); legacy mode does not retry, the trip stays WAITING`,
  legacyTimersDropped: (count: number) =>
    `legacy mode: ${count} driver-match timer(s) dropped on shutdown; those trips stay WAITING`,
};
