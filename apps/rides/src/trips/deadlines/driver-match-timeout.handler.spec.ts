import { describe, expect, it } from '@jest/globals';
import { RecordConflictError } from '@durable-timeout/sample-app-support';
import { NEW_TRIP, useTripsTestBed } from '../../testing/trips-testing.fixture.js';
import { DRIVER_MATCH_TOPIC } from './ride-topics.js';

const MATCH_MS = 60_000;
const EXTENSION_MS = 30_000;

describe('DriverMatchTimeoutHandler (testing module, manual clock, trips in Redis)', () => {
  const bed = useTripsTestBed({ DRIVER_MATCH_TIMEOUT_MS: MATCH_MS, SEARCH_EXTENSION_MS: EXTENSION_MS });

  it('gives up on a trip nobody accepted exactly at its due time, once, and tells the rider', async () => {
    const { trips, clock } = await bed.start();
    const { id, matchDueAt } = await trips.create(NEW_TRIP);
    expect(Date.parse(matchDueAt)).toBe(clock.now() + MATCH_MS);

    expect(await clock.advanceBy(MATCH_MS - 1)).toBe(0);
    expect((await trips.get(id)).status).toBe('WAITING');
    expect(await clock.advanceBy(1)).toBe(1);

    const trip = await trips.get(id);
    expect(trip.status).toBe('DRIVER_NOT_FOUND');
    expect(trip.transitions).toEqual([
      { from: 'WAITING', to: 'DRIVER_NOT_FOUND', at: expect.any(String), by: 'timeout', fencingToken: expect.any(Number), attempt: 1 },
    ]);
    expect(bed.webhook.received).toEqual([{ idempotencyKey: `${id}:DRIVER_NOT_FOUND`, body: { tripId: id, status: 'DRIVER_NOT_FOUND' }, answered: 200 }]);
    await expect(trips.accept(id, 'driver-late')).rejects.toThrow(RecordConflictError);
    expect(await trips.driver('driver-late')).toEqual({ driverId: 'driver-late', tripId: null });
  });

  it('gives a widened search more time: the timeout moves to the new absolute deadline, twice at most', async () => {
    const { trips, clock, scheduler } = await bed.start();
    const { id, matchDueAt } = await trips.create(NEW_TRIP);
    const firstDueAt = Date.parse(matchDueAt);

    await clock.advanceBy(MATCH_MS - 1_000);
    const widened = await trips.widenSearch(id);
    expect(widened).toMatchObject({ status: 'WAITING', searchWidenings: 1, matchDueAt: new Date(firstDueAt + EXTENSION_MS).toISOString() });
    expect(widened.transitions).toEqual([{ from: 'WAITING', to: 'WAITING', at: expect.any(String), by: 'widen' }]);
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: firstDueAt + EXTENSION_MS });

    expect(await clock.advanceTo(firstDueAt)).toBe(0);
    expect((await trips.widenSearch(id)).matchDueAt).toBe(new Date(firstDueAt + 2 * EXTENSION_MS).toISOString());
    await expect(trips.widenSearch(id)).rejects.toThrow(/widened 2 time\(s\), the most allowed/);

    expect(await clock.advanceTo(firstDueAt + 2 * EXTENSION_MS - 1)).toBe(0);
    expect(await clock.advanceBy(1)).toBe(1);
    expect((await trips.get(id)).status).toBe('DRIVER_NOT_FOUND');
    await expect(trips.widenSearch(id)).rejects.toThrow(/DRIVER_NOT_FOUND: its search for a driver is over/);
  });

  it('follows a deadline the trip moved without its timeout: fires at the old time, re-arms, ends at the new one', async () => {
    const { trips, clock, scheduler, repository } = await bed.start();
    const { id, matchDueAt } = await trips.create(NEW_TRIP);
    const later = Date.parse(matchDueAt) + 45_000;
    // As if the move of the timeout after a widening had failed (Redis blip): only the trip knows.
    await repository.transition(id, { from: ['WAITING'], to: 'WAITING', by: 'widen', set: { matchDueAt: later, searchWidenings: 1 } });

    expect(await clock.advanceBy(MATCH_MS)).toBe(1);
    expect((await trips.get(id)).status).toBe('WAITING');
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', dueAt: later, attempt: 0 });
    expect(bed.webhook.received).toEqual([]);

    expect(await clock.advanceTo(later)).toBe(1);
    expect((await trips.get(id)).status).toBe('DRIVER_NOT_FOUND');
  });

  it('is cancelled by an accept: the search deadline never fires', async () => {
    const { trips, clock, scheduler } = await bed.start();
    const { id } = await trips.create(NEW_TRIP);
    await trips.accept(id, 'driver-1');
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toBeNull();
    expect(await clock.advanceBy(MATCH_MS)).toBe(0);
    expect((await trips.get(id)).status).toBe('ASSIGNED');
  });

  it('retries a rider notice the webhook refuses, dead-letters it, and a replay delivers it without changing the trip again', async () => {
    const { trips, clock, scheduler } = await bed.start({ TIMEOUT_MAX_ATTEMPTS: 2, TIMEOUT_RETRY_BASE_MS: 1_000 });
    bed.webhook.status = 503;
    const { id } = await trips.create(NEW_TRIP);

    expect(await clock.advanceBy(MATCH_MS)).toBe(1);
    expect(await scheduler.get(DRIVER_MATCH_TOPIC, id)).toMatchObject({ state: 'pending', attempt: 1, lastError: expect.stringContaining('HTTP 503') });
    // Full jitter: the retry is due within the first backoff step.
    expect(await clock.advanceBy(1_000)).toBe(1);
    const [dead] = await scheduler.listDead(DRIVER_MATCH_TOPIC);
    expect(dead).toMatchObject({ id, attempts: 2, lastError: expect.stringContaining('/ops/dead-letters') });

    bed.webhook.status = 200;
    expect(await scheduler.replayDead(DRIVER_MATCH_TOPIC, [id])).toBe(1);
    expect(await clock.fireDue()).toBe(1);
    expect(await scheduler.listDead(DRIVER_MATCH_TOPIC)).toEqual([]);
    expect(bed.webhook.received.map((notice) => [notice.idempotencyKey, notice.answered])).toEqual([
      [`${id}:DRIVER_NOT_FOUND`, 503],
      [`${id}:DRIVER_NOT_FOUND`, 503],
      [`${id}:DRIVER_NOT_FOUND`, 200],
    ]);
    const trip = await trips.get(id);
    expect(trip.status).toBe('DRIVER_NOT_FOUND');
    expect(trip.transitions).toEqual([expect.objectContaining({ by: 'timeout', attempt: 1 })]);
  });
});
