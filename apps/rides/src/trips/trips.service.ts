import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isUUID } from 'class-validator';
import { RecordConflictError, RecordExistsError, RecordNotFoundError } from '@durable-timeout/sample-app-support';
import type { RidesConfig } from '../config/rides.config.js';
import { DRIVER_MATCH_TOPIC, PICKUP_TOPIC } from './deadlines/ride-topics.js';
import { TripDeadlines } from './deadlines/trip-deadlines.js';
import { MAX_SEARCH_WIDENINGS, type CreatedTripView, type DriverView, type TripStatus, type TripTransitionCause, type TripView } from './trip.model.js';
import { TripRepository, type NewTrip, type TripChange, type TripOutcome } from './trip.repository.js';
import { tripIdFor } from './trip-request-id.js';
import { tripsMessages } from './trips.messages.js';

/**
 * The trip use cases: request, widen the search, and the driver's accept, arrive, start and
 * complete; reads. Each change is a compare-and-set on the trip; the deadlines follow the rules of
 * `TripDeadlines` (a new one armed first, a later one recorded first).
 */
@Injectable()
export class TripsService {
  private readonly logger = new Logger('Trips');
  private readonly searchExtensionMs: number;

  constructor(
    private readonly trips: TripRepository,
    private readonly deadlines: TripDeadlines,
    config: ConfigService<RidesConfig, true>,
  ) {
    this.searchExtensionMs = config.get('SEARCH_EXTENSION_MS', { infer: true });
  }

  /**
   * Requests a trip, WAITING for a driver until its driver-match deadline. With an idempotency key
   * the request is safe to retry: the trip id is derived from the rider and the key, a retry answers
   * the trip the first attempt stored (as it is now), and a retry that comes after the first
   * attempt armed the deadline but before it stored the trip keeps that deadline (`ifExists: 'keep'`):
   * retrying never gives the search more time.
   */
  async create(trip: NewTrip, idempotencyKey?: string): Promise<CreatedTripView> {
    if (idempotencyKey === undefined) return this.open(randomUUID(), trip, (tripId) => this.deadlines.armDriverMatch(tripId));
    const id = tripIdFor(trip.riderId, idempotencyKey);
    const stored = await this.trips.get(id);
    if (stored !== null) return createdView(stored);
    try {
      return await this.open(id, trip, (tripId) => this.deadlines.armRequestedDriverMatch(tripId));
    } catch (error) {
      // The same request, retried while its first attempt ran, stored the trip first.
      if (error instanceof RecordExistsError) return createdView(await this.get(id));
      throw error;
    }
  }

  /** Arms the first driver-match deadline (before the trip records it: see `TripDeadlines`), then stores the trip. */
  private async open(id: string, trip: NewTrip, arm: (tripId: string) => Promise<number>): Promise<CreatedTripView> {
    const matchDueAt = await arm(id);
    const createdAt = await this.trips.create(id, trip, matchDueAt);
    const view: CreatedTripView = {
      id,
      status: 'WAITING',
      riderId: trip.riderId,
      pickup: trip.pickup,
      dropoff: trip.dropoff,
      createdAt: new Date(createdAt).toISOString(),
      matchDueAt: new Date(matchDueAt).toISOString(),
    };
    this.logger.log(tripsMessages.created(id, view.matchDueAt));
    return view;
  }

  /**
   * The rider widens the search and gets SEARCH_EXTENSION_MS more, counted from the current
   * deadline, at most `MAX_SEARCH_WIDENINGS` times. The trip records the new due time first (only
   * if it still holds what was read), then the timeout moves to that absolute time.
   */
  async widenSearch(id: string): Promise<TripView> {
    const trip = await this.get(id);
    if (trip.status !== 'WAITING') throw this.refusal(id, 'widen', 'WAITING', { kind: 'refused', status: trip.status });
    if (trip.searchWidenings >= MAX_SEARCH_WIDENINGS) throw new RecordConflictError(id, tripsMessages.widenLimit(id, trip.searchWidenings));
    const previousDueAt = Date.parse(trip.matchDueAt);
    const matchDueAt = previousDueAt + this.searchExtensionMs;
    await this.apply(id, 'widen', {
      from: ['WAITING'],
      to: 'WAITING',
      by: 'widen',
      // Two widenings at once must not both count from the same deadline: the second one is refused.
      expect: { matchDueAt: String(previousDueAt), searchWidenings: String(trip.searchWidenings) },
      set: { matchDueAt, searchWidenings: trip.searchWidenings + 1 },
    });
    await this.deadlines.extendDriverMatch(id, matchDueAt);
    return this.get(id);
  }

  /**
   * A driver accepts a waiting trip: WAITING -> ASSIGNED with the driver marked busy, in one atomic
   * step, and the pickup deadline armed for the driver to arrive; the driver-match deadline is
   * cancelled. Exactly one of an accept and the driver-match timeout wins; a refused accept leaves
   * the driver free.
   */
  async accept(id: string, driverId: string): Promise<TripView> {
    const trip = await this.get(id);
    // Refuse what the trip or driver already rules out before arming, so a hopeless accept does
    // not move the pickup deadline another driver is held to.
    if (trip.status !== 'WAITING') throw this.refusal(id, 'accept', 'WAITING', { kind: 'refused', status: trip.status });
    const busyWith = await this.trips.assignmentOf(driverId);
    if (busyWith !== null) throw this.refusal(id, 'accept', 'WAITING', { kind: 'busy', holder: busyWith }, driverId);
    const pickupDueAt = await this.deadlines.armDriverArrival(id);
    await this.apply(
      id,
      'accept',
      { from: ['WAITING'], to: 'ASSIGNED', by: 'accept', claims: this.trips.drivers({ take: driverId }), set: { driverId, pickupDueAt }, line: { driverId } },
      driverId,
    );
    await this.deadlines.cancel(DRIVER_MATCH_TOPIC, id);
    return this.get(id);
  }

  /** The assigned driver is at the pickup: ASSIGNED -> ARRIVED, the pickup deadline rescheduled for the rider to board. */
  async arrive(id: string, driverId: string): Promise<TripView> {
    const trip = await this.get(id);
    if (trip.status !== 'ASSIGNED') throw this.refusal(id, 'arrive', 'ASSIGNED', { kind: 'refused', status: trip.status });
    if (trip.driverId !== driverId) throw this.refusal(id, 'arrive', 'ASSIGNED', { kind: 'mismatch', field: 'driverId' }, driverId);
    const boardingDueAt = await this.deadlines.armRiderBoarding(id);
    await this.apply(
      id,
      'arrive',
      { from: ['ASSIGNED'], to: 'ARRIVED', by: 'arrive', expect: { driverId }, set: { pickupDueAt: boardingDueAt }, line: { driverId } },
      driverId,
    );
    return this.get(id);
  }

  /** The rider boarded: ARRIVED -> IN_PROGRESS, and the pickup deadline is cancelled. */
  async start(id: string, driverId: string): Promise<TripView> {
    await this.apply(
      id,
      'start',
      { from: ['ARRIVED'], to: 'IN_PROGRESS', by: 'start', expect: { driverId }, unset: ['pickupDueAt'], line: { driverId } },
      driverId,
    );
    await this.deadlines.cancel(PICKUP_TOPIC, id);
    return this.get(id);
  }

  /** The ride is over: IN_PROGRESS -> COMPLETED, and the driver is free again. */
  async complete(id: string, driverId: string): Promise<TripView> {
    await this.apply(
      id,
      'complete',
      { from: ['IN_PROGRESS'], to: 'COMPLETED', by: 'complete', expect: { driverId }, claims: this.trips.drivers({ release: driverId }), line: { driverId } },
      driverId,
    );
    return this.get(id);
  }

  /** Reads a trip with its transitions. */
  async get(id: string): Promise<TripView> {
    const trip = isUUID(id) ? await this.trips.get(id) : null;
    if (trip === null) throw new RecordNotFoundError(id, tripsMessages.notFound(id));
    return trip;
  }

  /** The trip a driver is assigned to, or null when the driver is free. */
  async driver(driverId: string): Promise<DriverView> {
    return { driverId, tripId: await this.trips.assignmentOf(driverId) };
  }

  private async apply(id: string, action: TripTransitionCause, change: TripChange, driverId?: string): Promise<void> {
    if (!isUUID(id)) throw new RecordNotFoundError(id, tripsMessages.notFound(id));
    const outcome = await this.trips.transition(id, change);
    if (outcome.kind !== 'applied') throw this.refusal(id, action, change.from[0]!, outcome, driverId);
    this.logger.log(tripsMessages.applied(id, action, change.to));
  }

  /** The error a refused action answers with: 404, or 409 saying what stood in the way. */
  private refusal(id: string, action: TripTransitionCause, expected: TripStatus, outcome: TripOutcome, driverId = ''): Error {
    switch (outcome.kind) {
      case 'not_found':
        return new RecordNotFoundError(id, tripsMessages.notFound(id));
      case 'refused':
        if (action === 'accept') return new RecordConflictError(id, tripsMessages.notWaiting(id, outcome.status));
        if (action === 'widen') return new RecordConflictError(id, tripsMessages.searchOver(id, outcome.status));
        return new RecordConflictError(id, tripsMessages.wrongStatus(id, outcome.status, action, expected));
      case 'busy':
        return new RecordConflictError(id, tripsMessages.driverBusy(driverId, outcome.holder));
      case 'mismatch':
        if (outcome.field === 'driverId') return new RecordConflictError(id, tripsMessages.notYourTrip(id, driverId, action));
        return new RecordConflictError(id, tripsMessages.changedMeanwhile(id, action));
      default:
        return new RecordConflictError(id, tripsMessages.changedMeanwhile(id, action));
    }
  }
}

/** What `POST /trips` answers for a trip already stored: a retried request gets the trip as it is now. */
function createdView(trip: TripView): CreatedTripView {
  const { id, status, riderId, pickup, dropoff, createdAt, matchDueAt } = trip;
  return { id, status, riderId, pickup, dropoff, createdAt, matchDueAt };
}
