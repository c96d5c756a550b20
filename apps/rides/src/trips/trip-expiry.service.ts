import { Injectable, Logger } from '@nestjs/common';
import { TripRepository } from './trip.repository.js';
import { tripsMessages } from './trips.messages.js';

/** Which delivery of the driver-match timeout is running (durable mode). */
export interface ExpiryDelivery {
  fencingToken: number;
  attempt: number;
}

/**
 * What happens when a trip's matching window closes: WAITING -> DRIVER_NOT_FOUND, as a
 * compare-and-set. Idempotent by construction: a second delivery, a stale worker or a timeout that
 * lost the race against an accept finds the trip no longer waiting and changes nothing.
 * Used by the durable handler and by the legacy in-process timer alike.
 */
@Injectable()
export class TripExpiryService {
  private readonly logger = new Logger('DriverMatchTimeout');

  constructor(private readonly trips: TripRepository) {}

  /**
   * Gives up on the trip if it is still waiting; returns whether this call applied the change.
   * Throws only when Redis fails (the durable module then retries).
   */
  async expire(tripId: string, delivery?: ExpiryDelivery): Promise<boolean> {
    const outcome = await this.trips.expire(tripId, delivery);
    if (outcome.applied) {
      this.logger.log(tripsMessages.timedOut(tripId, delivery?.attempt ?? 1, delivery?.fencingToken ?? 0));
      return true;
    }
    if (outcome.status === null) this.logger.warn(tripsMessages.timeoutForMissingTrip(tripId));
    else this.logger.log(tripsMessages.timeoutIgnored(tripId, outcome.status));
    return false;
  }
}
