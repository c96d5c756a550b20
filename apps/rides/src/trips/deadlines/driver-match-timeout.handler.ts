import { Injectable } from '@nestjs/common';
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { TripRepository } from '../trip.repository.js';
import { DRIVER_MATCH_TOPIC } from './ride-topics.js';
import { TripTimeoutEffects, type TimeoutResult } from './trip-timeout.effects.js';

/**
 * Handles due driver-match timeouts. Delivery is at least once, and a widened search may have
 * moved the trip's deadline after this timeout was claimed, so the effect is a compare-and-set
 * that only a still-waiting trip whose `matchDueAt` has come accepts. Returning acknowledges the
 * timeout; throwing (Redis or the rider webhook down) makes the module retry it with backoff.
 */
@Injectable()
export class DriverMatchTimeoutHandler {
  constructor(
    private readonly trips: TripRepository,
    private readonly effects: TripTimeoutEffects,
  ) {}

  /** WAITING -> DRIVER_NOT_FOUND, recording the delivery's fencing token; then the rider is told. */
  @OnTimeout(DRIVER_MATCH_TOPIC)
  async onDriverMatchTimeout(event: TimeoutEvent): Promise<TimeoutResult> {
    const outcome = await this.trips.transition(event.id, {
      from: ['WAITING'],
      to: 'DRIVER_NOT_FOUND',
      by: 'timeout',
      delivery: event,
      deadline: { field: 'matchDueAt', dueAt: event.dueAt },
    });
    return this.effects.settle(event, outcome, 'DRIVER_NOT_FOUND', 'DRIVER_NOT_FOUND');
  }
}
