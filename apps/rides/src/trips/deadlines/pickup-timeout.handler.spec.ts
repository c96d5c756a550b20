import { describe, expect, it } from '@jest/globals';
import type { TimeoutEvent } from '@durable-timeout/nestjs';
import { NEW_TRIP, useTripsTestBed } from '../../testing/trips-testing.fixture.js';
import { PickupTimeoutHandler } from './pickup-timeout.handler.js';
import { DRIVER_MATCH_TOPIC, PICKUP_TOPIC } from './ride-topics.js';

const MATCH_MS = 60_000;
const ARRIVAL_MS = 600_000;
const BOARDING_MS = 120_000;

describe('PickupTimeoutHandler (testing module, manual clock, trips in Redis)', () => {
  const bed = useTripsTestBed({ DRIVER_MATCH_TIMEOUT_MS: MATCH_MS, DRIVER_ARRIVAL_TIMEOUT_MS: ARRIVAL_MS, RIDER_NO_SHOW_TIMEOUT_MS: BOARDING_MS });

  it('unassigns a driver who does not reach the pickup in time, frees them, and searches again', async () => {
    const { trips, clock, scheduler } = await bed.start();
    const { id } = await trips.create(NEW_TRIP);
    const assigned = await trips.accept(id, 'driver-1');
    expect(Date.parse(assigned.pickupDueAt!)).toBe(clock.now() + ARRIVAL_MS);
    expect(await scheduler.get(PICKUP_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: clock.now() + ARRIVAL_MS });

    expect(await clock.advanceBy(ARRIVAL_MS - 1)).toBe(0);
    expect(await clock.advanceBy(1)).toBe(1);
    const waiting = await trips.get(id);
    expect(waiting).toMatchObject({ status: 'WAITING', searchWidenings: 0, matchDueAt: new Date(clock.now() + MATCH_MS).toISOString() });
    expect(waiting).not.toHaveProperty('driverId');
    expect(waiting).not.toHaveProperty('pickupDueAt');
    expect(waiting.transitions.map(({ from, to, by, driverId }) => ({ from, to, by, driverId }))).toEqual([
      { from: 'WAITING', to: 'ASSIGNED', by: 'accept', driverId: 'driver-1' },
      { from: 'ASSIGNED', to: 'WAITING', by: 'timeout', driverId: 'driver-1' },
    ]);
    expect(await trips.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: clock.now() + MATCH_MS });
    await expect(trips.arrive(id, 'driver-1')).rejects.toThrow(/WAITING, but arrive needs it ASSIGNED/);
    expect(bed.webhook.received).toEqual([]);

    // The new search runs like the first one.
    expect(await clock.advanceBy(MATCH_MS)).toBe(1);
    expect((await trips.get(id)).status).toBe('DRIVER_NOT_FOUND');
  });

  it('ignores a stale delivery for a driver since replaced: the new driver keeps the trip and the timeout follows their deadline', async () => {
    const { trips, clock, scheduler, moduleRef } = await bed.start();
    const { id } = await trips.create(NEW_TRIP);
    await trips.accept(id, 'driver-1');
    const staleDueAt = clock.now() + ARRIVAL_MS;
    await clock.advanceBy(ARRIVAL_MS);
    const reassigned = await trips.accept(id, 'driver-2');

    // A worker that claimed driver-1's timeout, stalled past its lease, and runs its handler only now.
    const stale = { topic: PICKUP_TOPIC, id, payload: null, dueAt: staleDueAt, scheduledAt: 0, attempt: 1, fencingToken: 1, signal: new AbortController().signal };
    expect(await moduleRef.get(PickupTimeoutHandler).onPickupTimeout(stale as TimeoutEvent)).toBe('rearmed');
    expect(await trips.get(id)).toMatchObject({ status: 'ASSIGNED', driverId: 'driver-2', pickupDueAt: reassigned.pickupDueAt });
    expect(await trips.driver('driver-2')).toEqual({ driverId: 'driver-2', tripId: id });
    expect(await scheduler.get(PICKUP_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: Date.parse(reassigned.pickupDueAt!) });
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toBeNull();
  });

  it('is rescheduled by the arrival: a rider who does not board in time is a no-show, the driver is freed and the rider told', async () => {
    const { trips, clock, scheduler } = await bed.start();
    const { id } = await trips.create(NEW_TRIP);
    const assigned = await trips.accept(id, 'driver-1');
    await clock.advanceBy(60_000);
    const arrived = await trips.arrive(id, 'driver-1');
    const boardingDueAt = clock.now() + BOARDING_MS;
    expect(arrived).toMatchObject({ status: 'ARRIVED', pickupDueAt: new Date(boardingDueAt).toISOString() });
    expect(await scheduler.get(PICKUP_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: boardingDueAt });
    expect(Date.parse(assigned.pickupDueAt!)).not.toBe(boardingDueAt);

    expect(await clock.advanceTo(boardingDueAt - 1)).toBe(0);
    expect(await clock.advanceBy(1)).toBe(1);
    const noShow = await trips.get(id);
    expect(noShow.status).toBe('RIDER_NO_SHOW');
    expect(noShow.transitions.at(-1)).toEqual({
      from: 'ARRIVED',
      to: 'RIDER_NO_SHOW',
      at: expect.any(String),
      by: 'timeout',
      driverId: 'driver-1',
      fencingToken: expect.any(Number),
      attempt: 1,
    });
    expect(await trips.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    expect(bed.webhook.received).toEqual([{ idempotencyKey: `${id}:RIDER_NO_SHOW`, body: { tripId: id, status: 'RIDER_NO_SHOW' }, answered: 200 }]);
    await expect(trips.start(id, 'driver-1')).rejects.toThrow(/RIDER_NO_SHOW, but start needs it ARRIVED/);
  });

  it('is cancelled when the ride starts; completing frees the driver', async () => {
    const { trips, clock, scheduler } = await bed.start();
    const { id } = await trips.create(NEW_TRIP);
    await trips.accept(id, 'driver-1');
    await trips.arrive(id, 'driver-1');
    await expect(trips.start(id, 'driver-2')).rejects.toThrow(/not assigned to driver driver-2/);
    const started = await trips.start(id, 'driver-1');
    expect(started.status).toBe('IN_PROGRESS');
    expect(started).not.toHaveProperty('pickupDueAt');
    expect(await scheduler.get(PICKUP_TOPIC, id)).toBeNull();
    expect(await clock.advanceBy(ARRIVAL_MS + BOARDING_MS)).toBe(0);
    expect(await trips.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: id });

    const completed = await trips.complete(id, 'driver-1');
    expect(completed.transitions.map(({ to }) => to)).toEqual(['ASSIGNED', 'ARRIVED', 'IN_PROGRESS', 'COMPLETED']);
    expect(await trips.driver('driver-1')).toEqual({ driverId: 'driver-1', tripId: null });
    expect(bed.webhook.received).toEqual([]);
  });
});
