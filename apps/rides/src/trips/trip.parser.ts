import { CorruptTripError } from './errors/corrupt-trip.error.js';
import { TRIP_STATUSES, type GeoPoint, type TripStatus, type TripTransition, type TripView } from './trip.model.js';

/**
 * Turns what Redis holds for a trip (its hash and its transitions list) into the API view.
 * Everything stored is parsed defensively: a field of the wrong shape throws `CorruptTripError`
 * instead of leaking `undefined` or a half-parsed object to the client.
 */
export function parseTrip(id: string, fields: Record<string, string>, transitions: readonly string[]): TripView {
  const corrupt = (detail: string) => new CorruptTripError(id, detail);
  const details = parseJson(fields['details'], () => corrupt('details is not JSON'));
  if (!isRecord(details) || typeof details['riderId'] !== 'string') throw corrupt('details has no riderId');
  const view: TripView = {
    id,
    status: parseTripStatus(fields['status'], () => corrupt('unknown status')),
    riderId: details['riderId'],
    pickup: parsePoint(details['pickup'], () => corrupt('bad pickup')),
    dropoff: parsePoint(details['dropoff'], () => corrupt('bad dropoff')),
    createdAt: parseTime(fields['createdAt'], () => corrupt('bad createdAt')),
    matchDueAt: parseTime(fields['matchDueAt'], () => corrupt('bad matchDueAt')),
    updatedAt: parseTime(fields['updatedAt'], () => corrupt('bad updatedAt')),
    transitions: transitions.map((text) => parseTransition(text, () => corrupt('bad transition'))),
  };
  if (fields['driverId'] !== undefined) view.driverId = fields['driverId'];
  return view;
}

function parseTransition(text: string, fail: () => Error): TripTransition {
  const raw = parseJson(text, fail);
  if (!isRecord(raw) || (raw['by'] !== 'accept' && raw['by'] !== 'timeout')) throw fail();
  const transition: TripTransition = {
    from: parseTripStatus(raw['from'], fail),
    to: parseTripStatus(raw['to'], fail),
    at: parseTime(raw['at'], fail),
    by: raw['by'],
  };
  if (typeof raw['driverId'] === 'string') transition.driverId = raw['driverId'];
  if (isPositiveInteger(raw['fencingToken'])) transition.fencingToken = raw['fencingToken'];
  if (isPositiveInteger(raw['attempt'])) transition.attempt = raw['attempt'];
  if (typeof raw['instance'] === 'string') transition.instance = raw['instance'];
  return transition;
}

/** Parses a status as stored, or throws what `fail` builds. */
export function parseTripStatus(value: unknown, fail: () => Error): TripStatus {
  const found = TRIP_STATUSES.find((status) => status === value);
  if (found === undefined) throw fail();
  return found;
}

function parsePoint(value: unknown, fail: () => Error): GeoPoint {
  if (!isRecord(value) || typeof value['lat'] !== 'number' || typeof value['lng'] !== 'number') throw fail();
  return { lat: value['lat'], lng: value['lng'] };
}

function parseTime(value: unknown, fail: () => Error): string {
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) throw fail();
  return new Date(ms).toISOString();
}

function parseJson(text: string | undefined, fail: () => Error): unknown {
  if (text === undefined) throw fail();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
