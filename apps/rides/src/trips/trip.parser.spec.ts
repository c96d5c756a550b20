import { describe, expect, it } from '@jest/globals';
import { CorruptTripError } from './errors/corrupt-trip.error.js';
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
    details: JSON.stringify({ riderId: 'rider-1', pickup: { lat: 1.5, lng: -2 }, dropoff: { lat: 3, lng: 4 } }),
    ...overrides,
  };
}

describe('parseTrip', () => {
  it('turns the stored hash and transitions into the API view, with the driver of an accept', () => {
    const transition = JSON.stringify({ from: 'WAITING', to: 'ASSIGNED', at: AT + 5, by: 'accept', driverId: 'driver-7' });
    expect(parseTrip(ID, stored({ status: 'ASSIGNED', driverId: 'driver-7' }), [transition])).toEqual({
      id: ID,
      status: 'ASSIGNED',
      riderId: 'rider-1',
      pickup: { lat: 1.5, lng: -2 },
      dropoff: { lat: 3, lng: 4 },
      driverId: 'driver-7',
      createdAt: new Date(AT).toISOString(),
      matchDueAt: new Date(AT + 60_000).toISOString(),
      updatedAt: new Date(AT).toISOString(),
      transitions: [{ from: 'WAITING', to: 'ASSIGNED', at: new Date(AT + 5).toISOString(), by: 'accept', driverId: 'driver-7' }],
    });
  });

  it.each([
    ['details that are not JSON', stored({ details: 'nope' }), []],
    ['a pickup without lng', stored({ details: JSON.stringify({ riderId: 'r', pickup: { lat: 1 }, dropoff: { lat: 1, lng: 1 } }) }), []],
    ['an unknown status', stored({ status: 'DRIVING' }), []],
    ['a transition with an unknown cause', stored(), [JSON.stringify({ from: 'WAITING', to: 'ASSIGNED', at: AT, by: 'payment' })]],
  ])('refuses %s with CorruptTripError naming the trip', (_case, fields, transitions) => {
    expect(() => parseTrip(ID, fields, transitions)).toThrow(CorruptTripError);
    expect(() => parseTrip(ID, fields, transitions)).toThrow(ID);
  });
});
