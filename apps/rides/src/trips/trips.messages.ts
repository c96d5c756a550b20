import type { TripStatus } from './trip.model.js';

/** Text of the trips errors and log lines, built in one place. Never includes rider data or locations. */
export const tripsMessages = {
  notFound: (id: string) => `Trip ${id} does not exist. Check the id returned by POST /trips.`,
  notWaiting: (id: string, status: TripStatus) =>
    status === 'ASSIGNED' || status === 'ARRIVED' || status === 'IN_PROGRESS' || status === 'COMPLETED'
      ? `Trip ${id} already has a driver (${status}); this driver stays free. Offer them another trip.`
      : `Trip ${id} is ${status}: it stopped waiting for a driver before this accept arrived; this driver stays free.`,
  searchOver: (id: string, status: TripStatus) =>
    `Trip ${id} is ${status}: its search for a driver is over, so it cannot be widened. Request a new trip if needed.`,
  widenLimit: (id: string, widenings: number) =>
    `Trip ${id} was already widened ${widenings} time(s), the most allowed; wait for a driver or request a new trip.`,
  driverBusy: (driverId: string, tripId: string) =>
    `Driver ${driverId} is already assigned to trip ${tripId}; finish that trip before accepting another.`,
  wrongStatus: (id: string, status: TripStatus, action: string, expected: TripStatus) =>
    `Trip ${id} is ${status}, but ${action} needs it ${expected}; nothing was changed. Read the trip (GET /trips/${id}) to see what happened.`,
  notYourTrip: (id: string, driverId: string, action: string) =>
    `Trip ${id} is not assigned to driver ${driverId} (any more), so this driver cannot ${action} it; nothing was changed.`,
  changedMeanwhile: (id: string, action: string) =>
    `Trip ${id} changed while this ${action} ran (another request won); nothing was changed. Read the trip and retry.`,
  badIdempotencyKey: (max: number) =>
    `The Idempotency-Key header must be 1 to ${max} characters: send the same key with every retry of one request, a new one per trip.`,
  created: (id: string, dueAt: string) => `trip ${id} waiting for a driver until ${dueAt}`,
  applied: (id: string, action: string, status: TripStatus) => `trip ${id}: ${action} -> ${status}`,
  timeoutApplied: (id: string, topic: string, status: TripStatus, attempt: number, fencingToken: number) =>
    `trip ${id}: ${topic} timeout -> ${status} (attempt ${attempt}, fencing token ${fencingToken})`,
  timeoutIgnored: (id: string, topic: string, reason: string) => `${topic} timeout of trip ${id} ignored: ${reason}`,
  timeoutRearmed: (id: string, topic: string, dueAt: number) =>
    `${topic} timeout of trip ${id} fired before the trip's deadline, which moved to ${new Date(dueAt).toISOString()}; scheduled again for then`,
  moveFailed: (id: string, topic: string, reason: string) =>
    `trip ${id}: its ${topic} deadline moved, but the timeout could not be moved (${reason}); it fires at the old time and schedules itself again`,
  scheduled: (id: string, topic: string, intent: string, outcome: string, dueAt: number) =>
    `${topic} timeout of trip ${id} (${intent}): ${outcome}, due ${new Date(dueAt).toISOString()}`,
  riderNotified: (id: string, status: TripStatus) => `rider of trip ${id} notified: ${status}`,
  riderNotificationSkipped: (id: string, status: TripStatus) => `rider of trip ${id} would be notified (${status}); RIDER_WEBHOOK_URL is not set`,
  notificationFailed: (id: string, reason: string) =>
    `The rider of trip ${id} could not be notified (${reason}). The timeout is retried with backoff and dead-lettered after its last ` +
    'attempt: list it with GET /ops/dead-letters and replay it with POST /ops/dead-letters/replay once the webhook answers.',
};
