import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TimeoutScheduler, type ScheduleIfExists, type ScheduleOptions, type ScheduleResult } from '@durable-timeout/nestjs';
import { cancelSupersededTimeout } from '@durable-timeout/sample-app-support';
import type { RidesConfig } from '../../config/rides.config.js';
import { tripsMessages } from '../trips.messages.js';
import { DRIVER_MATCH_TOPIC, PICKUP_TOPIC, type RidesTopic } from './ride-topics.js';

/**
 * Why a deadline's timeout is written, and the `ifExists` mode each intent schedules with:
 * - `arm`: a new deadline, or the next phase of one: `'replace'` (a stored timeout of the same id
 *   is replaced; safe because the trip holds every due time and a timeout that fires before it
 *   schedules itself again, see `TripTimeoutEffects`);
 * - `extend`: the deadline moved later: `'later'`, so a delayed or repeated call never pulls it
 *   earlier (two widenings racing: the later due time wins, whichever call lands last);
 * - `rearm`: a timeout fired before the trip's deadline and follows it: `'later'` as well;
 * - `request`: the first deadline of a trip requested with an `Idempotency-Key`: `'keep'`, so a
 *   retried request (same key, same trip id) finds the deadline its first attempt armed and leaves
 *   it: retrying never gives the search more time.
 */
export type ScheduleIntent = 'arm' | 'extend' | 'rearm' | 'request';

/** The schedule mode of each intent (see `ScheduleIntent`). */
const IF_EXISTS: Record<ScheduleIntent, ScheduleIfExists> = { arm: 'replace', extend: 'later', rearm: 'later', request: 'keep' };

/**
 * Every schedule and cancel of the rides app, by intent. Two rules keep a trip and its timeouts
 * consistent without a transaction across them:
 * - a new deadline is armed before the trip records it: if the trip write fails, the timeout
 *   later finds nothing to do, whereas the other way round the trip would wait for ever;
 * - a deadline moved later is recorded on the trip first and the timeout moved second: if moving
 *   the timeout fails, it fires at the old time, finds the later due time and re-arms itself.
 */
@Injectable()
export class TripDeadlines {
  private readonly logger = new Logger('TripDeadlines');
  private readonly durations: Pick<RidesConfig, 'DRIVER_MATCH_TIMEOUT_MS' | 'DRIVER_ARRIVAL_TIMEOUT_MS' | 'RIDER_NO_SHOW_TIMEOUT_MS'>;

  constructor(
    private readonly timeouts: TimeoutScheduler<RidesTopic>,
    config: ConfigService<RidesConfig, true>,
  ) {
    this.durations = {
      DRIVER_MATCH_TIMEOUT_MS: config.get('DRIVER_MATCH_TIMEOUT_MS', { infer: true }),
      DRIVER_ARRIVAL_TIMEOUT_MS: config.get('DRIVER_ARRIVAL_TIMEOUT_MS', { infer: true }),
      RIDER_NO_SHOW_TIMEOUT_MS: config.get('RIDER_NO_SHOW_TIMEOUT_MS', { infer: true }),
    };
  }

  /** A search for a driver starts: its deadline in DRIVER_MATCH_TIMEOUT_MS. Returns the due time (Redis clock). */
  armDriverMatch(tripId: string): Promise<number> {
    return this.schedule(DRIVER_MATCH_TOPIC, tripId, { delayMs: this.durations.DRIVER_MATCH_TIMEOUT_MS }, 'arm');
  }

  /**
   * The first search of a trip requested with an idempotency key: armed with `keep`, so an attempt
   * that already armed it keeps its due time (returned). Only when that deadline is being delivered
   * right now, before its trip was stored (that delivery finds no trip and does nothing), does this
   * request get a deadline of its own.
   */
  async armRequestedDriverMatch(tripId: string): Promise<number> {
    const timing = { delayMs: this.durations.DRIVER_MATCH_TIMEOUT_MS };
    const { dueAt, outcome } = await this.scheduleAs(DRIVER_MATCH_TOPIC, tripId, timing, 'request');
    return outcome === 'kept_firing' ? this.schedule(DRIVER_MATCH_TOPIC, tripId, timing, 'arm') : dueAt;
  }

  /**
   * The rider widened the search: the driver-match timeout moves to `dueAt`, an absolute time the
   * trip already holds. Never throws (the trip is already changed; see the class rules).
   */
  async extendDriverMatch(tripId: string, dueAt: number): Promise<void> {
    try {
      await this.schedule(DRIVER_MATCH_TOPIC, tripId, { at: new Date(dueAt) }, 'extend');
    } catch (error) {
      this.logger.warn(tripsMessages.moveFailed(tripId, DRIVER_MATCH_TOPIC, error instanceof Error ? error.message : String(error)));
    }
  }

  /** A driver accepted: the pickup deadline, for the driver to arrive, in DRIVER_ARRIVAL_TIMEOUT_MS. */
  armDriverArrival(tripId: string): Promise<number> {
    return this.schedule(PICKUP_TOPIC, tripId, { delayMs: this.durations.DRIVER_ARRIVAL_TIMEOUT_MS }, 'arm');
  }

  /** The driver is at the pickup: the same timeout, rescheduled for the rider to board within RIDER_NO_SHOW_TIMEOUT_MS. */
  armRiderBoarding(tripId: string): Promise<number> {
    return this.schedule(PICKUP_TOPIC, tripId, { delayMs: this.durations.RIDER_NO_SHOW_TIMEOUT_MS }, 'arm');
  }

  /** A timeout fired before the trip's deadline, which moved later: schedules it again for `dueAt`. */
  async rearm(topic: RidesTopic, tripId: string, dueAt: number): Promise<void> {
    await this.schedule(topic, tripId, { at: new Date(dueAt) }, 'rearm');
  }

  /** The deadline no longer applies (a driver accepted, the ride started). Never throws. */
  cancel(topic: RidesTopic, tripId: string): Promise<void> {
    return cancelSupersededTimeout(this.timeouts, topic, tripId, this.logger);
  }

  private async schedule(topic: RidesTopic, tripId: string, timing: ScheduleOptions, intent: ScheduleIntent): Promise<number> {
    return (await this.scheduleAs(topic, tripId, timing, intent)).dueAt;
  }

  private async scheduleAs(topic: RidesTopic, tripId: string, timing: ScheduleOptions, intent: ScheduleIntent): Promise<ScheduleResult> {
    const result = await this.timeouts.schedule(topic, tripId, { ...timing, ifExists: IF_EXISTS[intent] });
    this.logger.debug(tripsMessages.scheduled(tripId, topic, intent, result.outcome, result.dueAt));
    return result;
  }
}
