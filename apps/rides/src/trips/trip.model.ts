import type { RecordTransition } from '@durable-timeout/sample-app-support';

/**
 * Where a trip is in its life:
 *
 * ```
 * WAITING --accept--> ASSIGNED --arrive--> ARRIVED --start--> IN_PROGRESS --complete--> COMPLETED
 *    |  ^                 |                   |
 *    |  +-- driver late --+                   +-- rider did not board --> RIDER_NO_SHOW
 *    +-- no driver found --> DRIVER_NOT_FOUND
 * ```
 *
 * A rider may widen the search while WAITING (WAITING -> WAITING, with more time).
 */
export type TripStatus = 'WAITING' | 'ASSIGNED' | 'ARRIVED' | 'IN_PROGRESS' | 'COMPLETED' | 'DRIVER_NOT_FOUND' | 'RIDER_NO_SHOW';

/** Who applied a change: a rider or driver action, or one of the trip's timeouts. */
export type TripTransitionCause = 'widen' | 'accept' | 'arrive' | 'start' | 'complete' | 'timeout';

/** One line of a trip's audit trail: a change, applied once, never rewritten. */
export type TripTransition = RecordTransition<TripStatus, TripTransitionCause> & {
  /** The driver who accepted, arrived, started or completed, or who was unassigned for being late. */
  driverId?: string;
};

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
  /** The driver, from ASSIGNED on (cleared when a late driver is unassigned). */
  driverId?: string;
  createdAt: string;
  updatedAt: string;
  /** When the (latest) search for a driver gives up unless one accepts first. */
  matchDueAt: string;
  /** How many times the rider widened the current search (at most `MAX_SEARCH_WIDENINGS`). */
  searchWidenings: number;
  /** ASSIGNED: when the driver must be at the pickup. ARRIVED: when the rider must have boarded. */
  pickupDueAt?: string;
  /** Every change ever applied to this trip, oldest first. */
  transitions: TripTransition[];
}

/** What `POST /trips` answers. */
export type CreatedTripView = Pick<TripView, 'id' | 'status' | 'riderId' | 'pickup' | 'dropoff' | 'createdAt' | 'matchDueAt'>;

/** A driver's current assignment, as `GET /drivers/:driverId` returns it. */
export interface DriverView {
  driverId: string;
  /** The trip the driver is assigned to, or null when free. */
  tripId: string | null;
}

/** How often a rider may widen one search for a driver. */
export const MAX_SEARCH_WIDENINGS = 2;

/** The statuses, for parsing what Redis holds. */
export const TRIP_STATUSES: readonly TripStatus[] = [
  'WAITING',
  'ASSIGNED',
  'ARRIVED',
  'IN_PROGRESS',
  'COMPLETED',
  'DRIVER_NOT_FOUND',
  'RIDER_NO_SHOW',
];

/** The causes of a change, for parsing what Redis holds. */
export const TRIP_TRANSITION_CAUSES: readonly TripTransitionCause[] = ['widen', 'accept', 'arrive', 'start', 'complete', 'timeout'];
