import { isPlainObject, StoredRecordReader } from '@durable-timeout/sample-app-support';
import { TRIP_STATUSES, TRIP_TRANSITION_CAUSES, type GeoPoint, type TripView } from './trip.model.js';

/**
 * Turns what Redis holds for a trip (its hash and its transitions list) into the API view.
 * Everything stored is parsed defensively: a field of the wrong shape throws `CorruptRecordError`.
 */
export function parseTrip(id: string, fields: Record<string, string>, transitions: readonly string[]): TripView {
  const stored = new StoredRecordReader('trip', id, TRIP_STATUSES);
  const details = stored.object(fields['details'], 'details');
  if (typeof details['riderId'] !== 'string') throw stored.corrupt('details has no riderId');
  const point = (value: unknown, field: string): GeoPoint => {
    if (!isPlainObject(value) || typeof value['lat'] !== 'number' || typeof value['lng'] !== 'number') throw stored.corrupt(`bad ${field}`);
    return { lat: value['lat'], lng: value['lng'] };
  };
  const widenings = fields['searchWidenings'] ?? '0';
  if (!/^\d{1,3}$/.test(widenings)) throw stored.corrupt('bad searchWidenings');
  const view: TripView = {
    id,
    status: stored.status(fields['status']),
    riderId: details['riderId'],
    pickup: point(details['pickup'], 'pickup'),
    dropoff: point(details['dropoff'], 'dropoff'),
    createdAt: stored.time(fields['createdAt'], 'createdAt'),
    updatedAt: stored.time(fields['updatedAt'], 'updatedAt'),
    matchDueAt: stored.time(fields['matchDueAt'], 'matchDueAt'),
    searchWidenings: Number(widenings),
    transitions: stored.transitions(transitions, TRIP_TRANSITION_CAUSES, ['driverId']),
  };
  if (fields['driverId'] !== undefined) view.driverId = fields['driverId'];
  if (fields['pickupDueAt'] !== undefined) view.pickupDueAt = stored.time(fields['pickupDueAt'], 'pickupDueAt');
  return view;
}
