import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isUUID } from 'class-validator';
import type { RidesConfig } from '../config/rides.config.js';
import { MatchDeadlines } from './deadlines/match-deadlines.js';
import { DriverBusyError } from './errors/driver-busy.error.js';
import { TripNotFoundError } from './errors/trip-not-found.error.js';
import { TripNotWaitingError } from './errors/trip-not-waiting.error.js';
import type { CreatedTripView, DriverView, TripView } from './trip.model.js';
import { TripRepository, type NewTrip } from './trip.repository.js';
import { tripsMessages } from './trips.messages.js';

/** The trip use cases: request, accept, read; and a driver's current assignment. */
@Injectable()
export class TripsService {
  private readonly logger = new Logger('Trips');
  private readonly matchTimeoutMs: number;

  constructor(
    private readonly trips: TripRepository,
    private readonly deadlines: MatchDeadlines,
    config: ConfigService<RidesConfig, true>,
  ) {
    this.matchTimeoutMs = config.get('DRIVER_MATCH_TIMEOUT_MS', { infer: true });
  }

  /**
   * Requests a trip, WAITING for a driver. The deadline is armed first and the trip written second:
   * if the write fails the deadline later finds no trip and does nothing, whereas the other way
   * round a failed arm would leave a trip that waits for ever.
   */
  async create(trip: NewTrip): Promise<CreatedTripView> {
    const id = randomUUID();
    const due = await this.deadlines.arm(id, this.matchTimeoutMs);
    const { createdAt, matchDueAt } = await this.trips.create(id, trip, due);
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
   * A driver accepts a waiting trip: WAITING -> ASSIGNED with the driver marked busy, in one atomic
   * step, then the deadline is disarmed. Exactly one of an accept and a timeout racing on the same
   * trip wins; a losing accept leaves the driver free.
   */
  async accept(id: string, driverId: string): Promise<TripView> {
    if (!isUUID(id)) throw new TripNotFoundError(id);
    const result = await this.trips.accept(id, driverId);
    switch (result.outcome) {
      case 'not_found':
        throw new TripNotFoundError(id);
      case 'not_waiting':
        throw new TripNotWaitingError(id, result.status);
      case 'driver_busy':
        throw new DriverBusyError(driverId, result.tripId);
      case 'assigned':
        break;
    }
    this.logger.log(tripsMessages.assigned(id, driverId));
    await this.deadlines.disarm(id);
    return this.get(id);
  }

  /** Reads a trip with its transitions. */
  async get(id: string): Promise<TripView> {
    const trip = isUUID(id) ? await this.trips.get(id) : null;
    if (trip === null) throw new TripNotFoundError(id);
    return trip;
  }

  /** The trip a driver is assigned to, or null when the driver is free. */
  async driver(driverId: string): Promise<DriverView> {
    return { driverId, tripId: await this.trips.assignmentOf(driverId) };
  }
}
