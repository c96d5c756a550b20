import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT, reachRedis } from '@durable-timeout/sample-app-support';
import type { RidesConfig } from '../config/rides.config.js';
import { CorruptTripError } from './errors/corrupt-trip.error.js';
import { TripExistsError } from './errors/trip-exists.error.js';
import { TripKeys } from './trip.keys.js';
import type { GeoPoint, TripStatus, TripView } from './trip.model.js';
import { parseTrip, parseTripStatus } from './trip.parser.js';
import { ACCEPT_TRIP_LUA, CREATE_TRIP_LUA, EXPIRE_TRIP_LUA } from './trip.scripts.js';

/** What a new trip holds besides its id and times. */
export interface NewTrip {
  riderId: string;
  pickup: GeoPoint;
  dropoff: GeoPoint;
}

/** When a new trip stops waiting: a time already fixed (the durable timeout's) or a delay from now. */
export type MatchDue = { dueAt: number } | { delayMs: number };

/** Outcome of an accept. */
export type AcceptOutcome =
  | { outcome: 'assigned'; at: number }
  | { outcome: 'not_waiting'; status: TripStatus }
  | { outcome: 'driver_busy'; tripId: string }
  | { outcome: 'not_found' };

/** Outcome of the timeout's compare-and-set: applied, refused (with the status found), or no such trip. */
export type ExpireOutcome = { applied: true; at: number } | { applied: false; status: TripStatus | null };

interface TripScripts {
  ridesCreate(key: string, id: string, details: string, dueAt: string, delayMs: string): Promise<unknown>;
  ridesAccept(tripKey: string, transitionsKey: string, driversKey: string, driverId: string, instance: string): Promise<unknown>;
  ridesExpire(tripKey: string, transitionsKey: string, token: string, attempt: string, instance: string): Promise<unknown>;
}

/**
 * The rides state in Redis, shared by every instance. Each write is one Lua script: a trip is
 * created once, and each status change is a compare-and-set from WAITING that appends the change
 * to the trip's audit list (and, for an accept, records the driver's assignment) in one atomic step.
 */
@Injectable()
export class TripRepository {
  private readonly keys: TripKeys;
  private readonly scripts: TripScripts;
  private readonly instance: string;

  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis, config: ConfigService<RidesConfig, true>) {
    this.keys = new TripKeys(config.get('KEY_PREFIX', { infer: true }));
    this.instance = config.get('INSTANCE_ID', { infer: true }) ?? '';
    redis.defineCommand('ridesCreate', { numberOfKeys: 1, lua: CREATE_TRIP_LUA });
    redis.defineCommand('ridesAccept', { numberOfKeys: 3, lua: ACCEPT_TRIP_LUA });
    redis.defineCommand('ridesExpire', { numberOfKeys: 2, lua: EXPIRE_TRIP_LUA });
    this.scripts = redis as unknown as TripScripts;
  }

  /** Stores a new trip in WAITING; returns its creation and match due times (ms, Redis clock). */
  async create(id: string, trip: NewTrip, due: MatchDue): Promise<{ createdAt: number; matchDueAt: number }> {
    const details = JSON.stringify({ riderId: trip.riderId, pickup: trip.pickup, dropoff: trip.dropoff });
    const reply = await reachRedis(() =>
      this.scripts.ridesCreate(
        this.keys.trip(id),
        id,
        details,
        'dueAt' in due ? String(due.dueAt) : '',
        'delayMs' in due ? String(due.delayMs) : '0',
      ),
    );
    if (reply === -1) throw new TripExistsError(id);
    const [createdAt, matchDueAt] = reply as [number, number];
    return { createdAt, matchDueAt };
  }

  /** Reads a trip with its transitions in one MULTI (a consistent snapshot), or null. */
  async get(id: string): Promise<TripView | null> {
    const replies = await reachRedis(() =>
      this.redis.multi().hgetall(this.keys.trip(id)).lrange(this.keys.transitions(id), 0, -1).exec(),
    );
    if (replies === null) return null;
    const [[hashError, fields], [listError, transitions]] = replies as [
      [Error | null, Record<string, string>],
      [Error | null, string[]],
    ];
    if (hashError) throw hashError;
    if (listError) throw listError;
    if (Object.keys(fields).length === 0) return null;
    return parseTrip(id, fields, transitions);
  }

  /** The trip a driver is assigned to, or null when free. */
  async assignmentOf(driverId: string): Promise<string | null> {
    return reachRedis(() => this.redis.hget(this.keys.driverAssignments(), driverId));
  }

  /** A driver accepts a trip: assigned only if the trip is WAITING and the driver free. */
  async accept(id: string, driverId: string): Promise<AcceptOutcome> {
    const reply = await reachRedis(() =>
      this.scripts.ridesAccept(
        this.keys.trip(id),
        this.keys.transitions(id),
        this.keys.driverAssignments(),
        driverId,
        this.instance,
      ),
    );
    if (reply === -1) return { outcome: 'not_found' };
    const [code, value] = reply as [number, number | string];
    if (code === 1) return { outcome: 'assigned', at: Number(value) };
    if (code === 2) return { outcome: 'driver_busy', tripId: String(value) };
    return { outcome: 'not_waiting', status: parseTripStatus(value, () => new CorruptTripError(id, 'unknown status')) };
  }

  /** The timeout's compare-and-set: WAITING -> DRIVER_NOT_FOUND, recording the delivery. */
  async expire(id: string, delivery?: { fencingToken: number; attempt: number }): Promise<ExpireOutcome> {
    const reply = await reachRedis(() =>
      this.scripts.ridesExpire(
        this.keys.trip(id),
        this.keys.transitions(id),
        delivery === undefined ? '' : String(delivery.fencingToken),
        delivery === undefined ? '' : String(delivery.attempt),
        this.instance,
      ),
    );
    if (reply === -1) return { applied: false, status: null };
    const [applied, value] = reply as [number, number | string];
    if (applied === 1) return { applied: true, at: Number(value) };
    return { applied: false, status: parseTripStatus(value, () => new CorruptTripError(id, 'unknown status')) };
  }
}
