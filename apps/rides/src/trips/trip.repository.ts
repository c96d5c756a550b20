import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Redis } from 'ioredis';
import { reachRedis, REDIS_CLIENT, StatusRecords, type RecordChange, type TransitionOutcome } from '@durable-timeout/sample-app-support';
import type { RidesConfig } from '../config/rides.config.js';
import { TRIP_STATUSES, type GeoPoint, type TripStatus, type TripTransitionCause, type TripView } from './trip.model.js';
import { parseTrip } from './trip.parser.js';

/** What a new trip holds besides its id and times. */
export interface NewTrip {
  riderId: string;
  pickup: GeoPoint;
  dropoff: GeoPoint;
}

/** A change of a trip, applied only if its guards hold (see `RecordChange`). */
export type TripChange = RecordChange<TripStatus, TripTransitionCause>;

/** How a change of a trip ended. */
export type TripOutcome = TransitionOutcome<TripStatus>;

/**
 * The trips in Redis, shared by every instance: a hash and an audit list per trip, and one hash
 * of driver assignments for the app. Every change is one Lua compare-and-set (`StatusRecords`);
 * an accept marks the driver busy and an end of trip frees them in that same step. The driver hash
 * is touched together with a trip's keys, so the app expects a single Redis (not a Cluster).
 */
@Injectable()
export class TripRepository {
  private readonly records: StatusRecords<TripStatus, TripTransitionCause>;
  /** Hash driver id -> the trip the driver is assigned to. A driver absent from it is free. */
  private readonly driverAssignments: string;

  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis, config: ConfigService<RidesConfig, true>) {
    this.records = new StatusRecords(redis, {
      prefix: config.get('KEY_PREFIX', { infer: true }),
      kind: 'trip',
      statuses: TRIP_STATUSES,
      instance: config.get('INSTANCE_ID', { infer: true }),
    });
    this.driverAssignments = this.records.keys.shared('drivers:assigned');
  }

  /** Stores a new trip in WAITING with its driver-match deadline; returns its creation time (ms, Redis clock). */
  async create(id: string, trip: NewTrip, matchDueAt: number): Promise<number> {
    const details = JSON.stringify({ riderId: trip.riderId, pickup: trip.pickup, dropoff: trip.dropoff });
    const { createdAt } = await this.records.create(id, {
      status: 'WAITING',
      dueField: 'matchDueAt',
      due: { dueAt: matchDueAt },
      fields: { details, searchWidenings: '0' },
    });
    return createdAt;
  }

  /** Reads a trip with its transitions (a consistent snapshot), or null. */
  async get(id: string): Promise<TripView | null> {
    const stored = await this.records.read(id);
    return stored === null ? null : parseTrip(id, stored.fields, stored.transitions);
  }

  /** Applies `change` to the trip if its guards hold (compare-and-set). */
  transition(id: string, change: TripChange): Promise<TripOutcome> {
    return this.records.transition(id, change);
  }

  /** The claims part of a change that makes `take` busy or frees `release`. */
  drivers(driver: { take?: string; release?: string }): NonNullable<TripChange['claims']> {
    return { key: this.driverAssignments, ...driver };
  }

  /** The trip a driver is assigned to, or null when free. */
  async assignmentOf(driverId: string): Promise<string | null> {
    return reachRedis(() => this.redis.hget(this.driverAssignments, driverId));
  }
}
