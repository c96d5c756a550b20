import { Injectable } from '@nestjs/common';
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { TripRepository, type TripChange } from '../trip.repository.js';
import { PICKUP_TOPIC } from './ride-topics.js';
import { TripDeadlines } from './trip-deadlines.js';
import { TripTimeoutEffects, type TimeoutResult } from './trip-timeout.effects.js';

/**
 * Handles due pickup timeouts: one topic for the two halves of a pickup, told apart by the trip's
 * status. ASSIGNED: the driver did not arrive in time, so they are unassigned and the trip searches
 * again. ARRIVED: the rider did not board, so the trip ends as RIDER_NO_SHOW and the driver is free.
 * Each is a compare-and-set on the status, the driver and the trip's `pickupDueAt`, so a stale
 * delivery (for a driver since replaced, or before an arrival moved the deadline) changes nothing.
 */
@Injectable()
export class PickupTimeoutHandler {
  constructor(
    private readonly trips: TripRepository,
    private readonly deadlines: TripDeadlines,
    private readonly effects: TripTimeoutEffects,
  ) {}

  /** Unassigns a late driver or ends the trip of a rider who did not show up. */
  @OnTimeout(PICKUP_TOPIC)
  async onPickupTimeout(event: TimeoutEvent): Promise<TimeoutResult> {
    const trip = await this.trips.get(event.id);
    if ((trip?.status !== 'ASSIGNED' && trip?.status !== 'ARRIVED') || trip.driverId === undefined) {
      // No such trip, or past its pickup; a RIDER_NO_SHOW found here gets its rider told again.
      return this.effects.settle(event, trip === null ? { kind: 'not_found' } : { kind: 'refused', status: trip.status }, 'RIDER_NO_SHOW', 'RIDER_NO_SHOW');
    }
    const driverId = trip.driverId;
    const pickupDueAt = trip.pickupDueAt === undefined ? 0 : Date.parse(trip.pickupDueAt);
    if (pickupDueAt > event.dueAt) {
      // A stale delivery (the deadline moved since): follow it, and arm no search for nothing.
      return this.effects.settle(event, { kind: 'moved', dueAt: pickupDueAt }, trip.status);
    }
    const guarded = {
      by: 'timeout',
      delivery: event,
      expect: { driverId },
      deadline: { field: 'pickupDueAt', dueAt: event.dueAt },
      claims: this.trips.drivers({ release: driverId }),
      line: { driverId },
    } as const satisfies Partial<TripChange>;
    if (trip.status === 'ARRIVED') {
      const outcome = await this.trips.transition(trip.id, { ...guarded, from: ['ARRIVED'], to: 'RIDER_NO_SHOW' });
      return this.effects.settle(event, outcome, 'RIDER_NO_SHOW', 'RIDER_NO_SHOW');
    }
    // A new search is a new deadline: armed before the trip records it. The compare-and-set checks
    // the driver and the deadline again: whatever changed since the read wins.
    const matchDueAt = await this.deadlines.armDriverMatch(trip.id);
    const outcome = await this.trips.transition(trip.id, {
      ...guarded,
      from: ['ASSIGNED'],
      to: 'WAITING',
      set: { matchDueAt, searchWidenings: 0 },
      unset: ['driverId', 'pickupDueAt'],
    });
    return this.effects.settle(event, outcome, 'WAITING');
  }
}
