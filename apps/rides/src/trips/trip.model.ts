/** Where a trip is in its life. Only WAITING has a way out; the two others are final. */
export type TripStatus = 'WAITING' | 'ASSIGNED' | 'DRIVER_NOT_FOUND';

/** Who applied a status change: a driver accepting, or the driver-match timeout. */
export type TripTransitionCause = 'accept' | 'timeout';

/** One line of a trip's audit trail: a status change, applied once, never rewritten. */
export interface TripTransition {
  from: TripStatus;
  to: TripStatus;
  /** ISO 8601 time of the change (Redis server clock). */
  at: string;
  by: TripTransitionCause;
  /** Accept path only: the driver who took the trip. */
  driverId?: string;
  /** Timeout path only: the fencing token of the delivery that applied it. */
  fencingToken?: number;
  /** Timeout path only: the delivery attempt that applied it. */
  attempt?: number;
  /** The INSTANCE_ID of the instance that applied it, when set. */
  instance?: string;
}

/** A point on the map, in degrees. */
export interface GeoPoint {
  lat: number;
  lng: number;
}

/** A trip as the API returns it. Times are ISO 8601 strings on the Redis server clock. */
export interface TripView {
  id: string;
  status: TripStatus;
  riderId: string;
  pickup: GeoPoint;
  dropoff: GeoPoint;
  /** The assigned driver, once ASSIGNED. */
  driverId?: string;
  createdAt: string;
  /** When the trip gives up on finding a driver unless one accepts first. */
  matchDueAt: string;
  updatedAt: string;
  /** Every status change ever applied to this trip, oldest first. */
  transitions: TripTransition[];
}

/** What `POST /trips` answers. */
export type CreatedTripView = Omit<TripView, 'updatedAt' | 'transitions' | 'driverId'>;

/** A driver's current assignment, as `GET /drivers/:driverId` returns it. */
export interface DriverView {
  driverId: string;
  /** The trip the driver is assigned to, or null when free. */
  tripId: string | null;
}

/** The statuses, for parsing what Redis holds. */
export const TRIP_STATUSES: readonly TripStatus[] = ['WAITING', 'ASSIGNED', 'DRIVER_NOT_FOUND'];
