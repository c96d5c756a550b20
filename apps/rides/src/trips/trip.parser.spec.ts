import { describe, expect, it } from '@jest/globals';
import { CorruptRecordError } from '@durable-timeout/sample-app-support';
import { parseTrip } from './trip.parser.js';

const ID = '11111111-2222-4333-8444-555555555555';
const AT = 1_795_000_000_000;

function stored(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    id: ID,
    status: 'WAITING',
    createdAt: String(AT),
    updatedAt: String(AT),
    matchDueAt: String(AT + 60_000),
    searchWidenings: '0',
    details: JSON.stringify({ riderId: 'rider-1', pickup: { lat: 1.5, lng: -2 }, dropoff: { lat: 3, lng: 4 } }),
    ...overrides,
  };
}

describe('parseTrip', () => {
  it('turns the stored hash and transitions into the API view, with the driver of an accept', () => {
    const transition = JSON.stringify({ from: 'WAITING', to: 'ASSIGNED', at: AT + 5, by: 'accept', driverId: 'driver-7' });
    expect(parseTrip(ID, stored({ status: 'ASSIGNED', driverId: 'driver-7', pickupDueAt: String(AT + 600_000) }), [transition])).toEqual({
      id: ID,
      status: 'ASSIGNED',
      riderId: 'rider-1',
      pickup: { lat: 1.5, lng: -2 },
      dropoff: { lat: 3, lng: 4 },
      driverId: 'driver-7',
      createdAt: new Date(AT).toISOString(),
      matchDueAt: new Date(AT + 60_000).toISOString(),
      searchWidenings: 0,
      pickupDueAt: new Date(AT + 600_000).toISOString(),
      updatedAt: new Date(AT).toISOString(),
      transitions: [{ from: 'WAITING', to: 'ASSIGNED', at: new Date(AT + 5).toISOString(), by: 'accept', driverId: 'driver-7' }],
    });
  });

  it('reads a timeout line with its delivery, and a widened search', () => {
    const line = JSON.stringify({ from: 'ASSIGNED', to: 'WAITING', at: AT, by: 'timeout', fencingToken: 4, attempt: 1, driverId: 'd', instance: 'b' });
    const view = parseTrip(ID, stored({ searchWidenings: '2' }), [line]);
    expect(view.searchWidenings).toBe(2);
    expect(view).not.toHaveProperty('pickupDueAt');
    expect(view.transitions).toEqual([
      { from: 'ASSIGNED', to: 'WAITING', at: new Date(AT).toISOString(), by: 'timeout', fencingToken: 4, attempt: 1, driverId: 'd', instance: 'b' },
    ]);
  });

  it.each([
    ['details that are not JSON', stored({ details: 'nope' }), []],
    ['a pickup without lng', stored({ details: JSON.stringify({ riderId: 'r', pickup: { lat: 1 }, dropoff: { lat: 1, lng: 1 } }) }), []],
    ['an unknown status', stored({ status: 'DRIVING' }), []],
    ['a widening count that is not a number', stored({ searchWidenings: 'many' }), []],
    ['a pickup due time that is not a time', stored({ pickupDueAt: 'soon' }), []],
    ['a transition with an unknown cause', stored(), [JSON.stringify({ from: 'WAITING', to: 'ASSIGNED', at: AT, by: 'payment' })]],
  ])('refuses %s with CorruptRecordError naming the trip', (_case, fields, transitions) => {
    expect(() => parseTrip(ID, fields, transitions)).toThrow(CorruptRecordError);
    expect(() => parseTrip(ID, fields, transitions)).toThrow(ID);
  });
});
