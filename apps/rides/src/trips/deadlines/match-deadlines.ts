import type { MatchDue } from '../trip.repository.js';

/**
 * The driver-match deadline of a trip, armed before the trip is stored and disarmed by an accept.
 * Two implementations, picked by TIMEOUT_MODE: `DurableMatchDeadlines` (in Redis, survives
 * restarts) and `LegacyMatchDeadlines` (a `setTimeout` in the creating process, the old pattern).
 */
export abstract class MatchDeadlines {
  /** Arms the deadline of `tripId` in `delayMs`; says when it is due, for the trip to record. */
  abstract arm(tripId: string, delayMs: number): Promise<MatchDue>;

  /** Disarms it after an accept; a deadline already firing finds the trip assigned and does nothing. */
  abstract disarm(tripId: string): Promise<void>;
}
