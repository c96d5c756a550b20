import { Injectable, Logger } from '@nestjs/common';
import { TimeoutScheduler } from '@durable-timeout/nestjs';
import type { MatchDue } from '../trip.repository.js';
import { tripsMessages } from '../trips.messages.js';
import { MatchDeadlines } from './match-deadlines.js';

/** The topic of the driver-match timeouts. */
export const DRIVER_MATCH_TOPIC = 'driver-match';

/**
 * Driver-match deadlines kept in Redis by durable-timeout: the timeout's id is the trip id, and any
 * instance fires it once it is due, even if the instance that created the trip is gone.
 */
@Injectable()
export class DurableMatchDeadlines extends MatchDeadlines {
  private readonly logger = new Logger('MatchDeadlines');

  constructor(private readonly timeouts: TimeoutScheduler) {
    super();
  }

  /** Schedules the timeout; its due time (Redis server clock) becomes the trip's `matchDueAt`. */
  override async arm(tripId: string, delayMs: number): Promise<MatchDue> {
    const scheduled = await this.timeouts.schedule(DRIVER_MATCH_TOPIC, tripId, { delayMs });
    return { dueAt: scheduled.dueAt };
  }

  /** Cancels the timeout. `firing` is fine: the handler's compare-and-set finds the trip ASSIGNED. */
  override async disarm(tripId: string): Promise<void> {
    try {
      const result = await this.timeouts.cancel(DRIVER_MATCH_TOPIC, tripId);
      this.logger.debug(tripsMessages.timeoutCancelResult(tripId, result));
    } catch (error) {
      // The assignment is already applied; a timeout left behind fires later and changes nothing.
      this.logger.warn(tripsMessages.cancelFailed(tripId, error instanceof Error ? error.message : String(error)));
    }
  }
}
