import { Injectable } from '@nestjs/common';
import { OnTimeout, type TimeoutEvent } from '@durable-timeout/nestjs';
import { TripExpiryService } from '../trip-expiry.service.js';
import { DRIVER_MATCH_TOPIC } from './durable-match-deadlines.js';

/**
 * Handles due driver-match timeouts (durable mode). Delivery is at least once, so the effect is a
 * compare-and-set that only a still-waiting trip accepts. Returning acknowledges the timeout;
 * throwing (Redis unreachable) makes the module retry it with backoff.
 */
@Injectable()
export class DriverMatchTimeoutHandler {
  constructor(private readonly expiry: TripExpiryService) {}

  /** Moves the trip to DRIVER_NOT_FOUND if it is still waiting, recording the delivery's fencing token. */
  @OnTimeout(DRIVER_MATCH_TOPIC)
  async onDriverMatchTimeout(event: TimeoutEvent): Promise<void> {
    await this.expiry.expire(event.id, { fencingToken: event.fencingToken, attempt: event.attempt });
  }
}
