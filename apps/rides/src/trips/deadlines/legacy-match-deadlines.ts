import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { TripExpiryService } from '../trip-expiry.service.js';
import type { MatchDue } from '../trip.repository.js';
import { tripsMessages } from '../trips.messages.js';
import { MatchDeadlines } from './match-deadlines.js';

/**
 * The old pattern, kept to show what goes wrong (TIMEOUT_MODE=legacy): one in-memory `setTimeout`
 * per trip in the process that created it. A restart, a deploy or a crash loses every armed timer,
 * and those trips stay WAITING for ever while the rider is still shown a spinner.
 */
@Injectable()
export class LegacyMatchDeadlines extends MatchDeadlines implements BeforeApplicationShutdown {
  private readonly logger = new Logger('MatchDeadlines');
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly expiry: TripExpiryService) {
    super();
  }

  /** Starts a process timer that gives up on the trip after `delayMs`. */
  override async arm(tripId: string, delayMs: number): Promise<MatchDue> {
    const timer = setTimeout(() => {
      this.timers.delete(tripId);
      this.expiry.expire(tripId).catch((error: unknown) => {
        // No retry in the old pattern: a failed expiry is simply lost.
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.error(tripsMessages.legacyExpiryFailed(tripId, reason));
      });
    }, delayMs);
    this.timers.set(tripId, timer);
    return { delayMs };
  }

  /** Clears the timer, if this process holds it (another instance's timer keeps running). */
  override async disarm(tripId: string): Promise<void> {
    clearTimeout(this.timers.get(tripId));
    this.timers.delete(tripId);
  }

  /** The process is going away: its timers go with it, which is the failure this mode demonstrates. */
  beforeApplicationShutdown(): void {
    if (this.timers.size > 0) this.logger.warn(tripsMessages.legacyTimersDropped(this.timers.size));
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
