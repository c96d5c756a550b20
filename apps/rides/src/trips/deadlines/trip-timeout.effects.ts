import { Injectable, Logger } from '@nestjs/common';
import type { TimeoutEvent } from '@durable-timeout/nestjs';
import { RiderNotifier, type RiderNotice } from '../notify/rider-notifier.js';
import type { TripStatus } from '../trip.model.js';
import type { TripOutcome } from '../trip.repository.js';
import { tripsMessages } from '../trips.messages.js';
import type { RidesTopic } from './ride-topics.js';
import { TripDeadlines } from './trip-deadlines.js';

/** What a timeout handler of the rides app did: changed the trip, followed a deadline that moved, or nothing. */
export type TimeoutResult = 'applied' | 'rearmed' | 'ignored';

/**
 * What both timeout handlers do once their compare-and-set has run. The trip holds the due time of
 * each deadline; a timeout is only the reminder to look at it. So a delivery may find:
 * - the change applied: logged, and the rider told of the ending (`notice`);
 * - the deadline moved later than this delivery (a widened search, a new driver): the timeout is
 *   scheduled again for the trip's due time;
 * - the trip already in the target status: an earlier delivery applied it, maybe without reaching
 *   the rider (the webhook failed): the rider is told again, at least once;
 * - anything else: the trip moved on (a driver accepted, the ride started): nothing to do.
 * Redis or webhook failures throw, so the module retries the timeout and in the end dead-letters it.
 */
@Injectable()
export class TripTimeoutEffects {
  private readonly logger = new Logger('TripTimeouts');

  constructor(
    private readonly deadlines: TripDeadlines,
    private readonly notifier: RiderNotifier,
  ) {}

  /** Finishes the handling of `event` after its compare-and-set towards `target` ended as `outcome`. */
  async settle(event: TimeoutEvent, outcome: TripOutcome, target: TripStatus, notice?: RiderNotice): Promise<TimeoutResult> {
    const topic = event.topic as RidesTopic;
    switch (outcome.kind) {
      case 'applied':
        this.logger.log(tripsMessages.timeoutApplied(event.id, topic, target, event.attempt, event.fencingToken));
        if (notice) await this.notifier.notify(event.id, notice, event.signal);
        return 'applied';
      case 'moved':
        await this.deadlines.rearm(topic, event.id, outcome.dueAt);
        this.logger.log(tripsMessages.timeoutRearmed(event.id, topic, outcome.dueAt));
        return 'rearmed';
      case 'refused':
        if (outcome.status === target && notice) {
          await this.notifier.notify(event.id, notice, event.signal);
          return 'applied';
        }
        this.logger.log(tripsMessages.timeoutIgnored(event.id, topic, `the trip is ${outcome.status}`));
        return 'ignored';
      case 'not_found':
        this.logger.warn(tripsMessages.timeoutIgnored(event.id, topic, 'no such trip (its creation failed)'));
        return 'ignored';
      default:
        this.logger.log(tripsMessages.timeoutIgnored(event.id, topic, 'the trip changed meanwhile'));
        return 'ignored';
    }
  }
}
