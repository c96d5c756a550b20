import { describe, expect, it } from '@jest/globals';
import { stoppedAfterEach } from '../../test/testing-timeouts.js';
import type { DurableTimeouts } from '../durable-timeouts.js';
import type { TimeoutEvent } from '../types.js';
import { TimeoutsStoppedError } from '../errors/timeouts-stopped.error.js';
import { DuplicateHandlerError } from '../errors/duplicate-handler.error.js';
import { UnknownTopicError } from '../errors/unknown-topic.error.js';
import { InvalidTimeoutIdError } from '../errors/invalid-timeout-id.error.js';
import { LEASE_EXPIRED_ERROR } from '../store/stored-error.js';

const createTestingTimeouts = stoppedAfterEach();

describe('DurableTimeouts on the in-memory store', () => {
  it('fires a timeout once its due time passes on the store clock, then forgets it', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts<{ payment: { amount: number } }>({ topics: { payment: {} } });
    const fired: TimeoutEvent<{ amount: number }>[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event);
    });
    const result = await timeouts.schedule('payment', 'order-1', { delayMs: 60_000, payload: { amount: 42 } });
    expect(result.outcome).toBe('created');
    expect(await advanceBy(59_999)).toBe(0);
    expect(fired).toHaveLength(0);
    expect(await advanceBy(1)).toBe(1);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ topic: 'payment', id: 'order-1', payload: { amount: 42 }, attempt: 1, dueAt: result.dueAt });
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
    expect(await advanceBy(60_000)).toBe(0);
  });

  it('retries a failing handler with backoff within [d/2, d], then dead-letters it with the error', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts({
      topics: { payment: { maxAttempts: 3, backoff: { baseMs: 1_000, capMs: 10_000 } } },
    });
    const attempts: number[] = [];
    timeouts.handle('payment', (event) => {
      attempts.push(event.attempt);
      throw new Error(`boom ${event.attempt}`);
    });
    const retried: number[] = [];
    const dead: string[] = [];
    timeouts.on('retried', (event) => retried.push(event.retryAt));
    timeouts.on('dead', (event) => dead.push(event.error.message));
    const { dueAt } = await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    await advanceBy(0);
    expect(attempts).toEqual([1]);
    const firstRetry = retried[0]! - dueAt;
    expect(firstRetry).toBeGreaterThanOrEqual(500);
    expect(firstRetry).toBeLessThanOrEqual(1_000);
    const info = await timeouts.get('payment', 'order-1');
    expect(info).toMatchObject({ state: 'pending', attempt: 1, lastError: 'boom 1' });
    await advanceBy(1_000);
    expect(attempts).toEqual([1, 2]);
    await advanceBy(2_000);
    expect(attempts).toEqual([1, 2, 3]);
    expect(dead).toEqual(['boom 3']);
    const letters = await timeouts.listDead('payment');
    expect(letters).toMatchObject([{ id: 'order-1', attempts: 3, lastError: 'boom 3' }]);
    expect(await timeouts.replayDead('payment')).toBe(1);
    await advanceBy(0);
    expect(attempts).toEqual([1, 2, 3, 1]);
    expect(await timeouts.purgeDead('payment', ['order-1'])).toBe(0);
  });

  it('keeps one handler per topic and refuses unknown topics and calls after stop', async () => {
    const { timeouts } = createTestingTimeouts({ topics: { payment: {} } });
    timeouts.handle('payment', () => undefined);
    expect(() => timeouts.handle('payment', () => undefined)).toThrow(DuplicateHandlerError);
    expect(() => timeouts.handle('nope' as 'payment', () => undefined)).toThrow(UnknownTopicError);
    await timeouts.stop();
    await timeouts.stop();
    await expect(timeouts.schedule('payment', 'x', { delayMs: 1 })).rejects.toThrow(TimeoutsStoppedError);
    await expect(timeouts.fireDue()).rejects.toThrow(TimeoutsStoppedError);
  });

  it('never runs more handlers of a topic at once than its concurrency, and still runs them all', async () => {
    const { timeouts, clock } = createTestingTimeouts({ topics: { payment: { concurrency: 3, batchSize: 10, slots: 4 } } });
    let running = 0;
    let peak = 0;
    let done = 0;
    timeouts.handle('payment', async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      done++;
    });
    await timeouts.start();
    for (let i = 0; i < 30; i++) await timeouts.schedule('payment', `order-${i}`, { at: clock.now() });
    const deadline = Date.now() + 10_000;
    while (done < 30 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(done).toBe(30);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
    await timeouts.stop();
  });

  it('a handler registered after start starts its pollers at once', async () => {
    const { timeouts, clock } = createTestingTimeouts({ topics: { payment: {}, ride: {} } });
    timeouts.handle('payment', () => undefined);
    await timeouts.start();
    const fired: string[] = [];
    timeouts.handle('ride', (event) => {
      fired.push(event.id);
    });
    await timeouts.schedule('ride', 'trip-1', { at: clock.now() });
    const deadline = Date.now() + 5_000;
    while (fired.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fired).toEqual(['trip-1']);
    await timeouts.stop();
  });

  it('dead-letters at once a timeout whose stored payload is not JSON, without calling the handler', async () => {
    const { timeouts, store, advanceBy } = createTestingTimeouts({ topics: { payment: { slots: 1 } } });
    let called = false;
    timeouts.handle('payment', () => {
      called = true;
    });
    await store.writes.schedule({ topic: 'payment', slot: 0 }, 'broken', { delayMs: 0, payload: '{not json' });
    await advanceBy(0);
    expect(called).toBe(false);
    const [letter] = await timeouts.listDead('payment');
    expect(letter).toMatchObject({ id: 'broken', attempts: 1, payload: null });
    expect(letter!.lastError).toMatch(/not valid JSON/);
  });

  it('refuses ids that are not well-formed Unicode, as on Redis', async () => {
    const { timeouts } = createTestingTimeouts({ topics: { payment: {} } });
    for (const id of ['id-\uD800', 'id-\uDBFF']) {
      await expect(timeouts.schedule('payment', id, { delayMs: 1 })).rejects.toThrow(InvalidTimeoutIdError);
      await expect(timeouts.get('payment', id)).rejects.toThrow(/lone UTF-16 surrogate/);
    }
  });

  it('counts an expired lease as a failed attempt: a handler that never returns gets maxAttempts deliveries, then the dead letters', async () => {
    const { timeouts, clock } = createTestingTimeouts({
      topics: { payment: { slots: 1, leaseMs: 1_000, maxAttempts: 3, backoff: { baseMs: 100, capMs: 100 } } },
    });
    const deliveries: number[] = [];
    const events: string[] = [];
    timeouts.handle('payment', (event) => {
      deliveries.push(event.attempt);
      return new Promise(() => undefined);
    });
    timeouts.on('retried', (event) => events.push(`retried ${event.attempt} ${event.reason} ${event.error.message}`));
    timeouts.on('dead', (event) => events.push(`dead ${event.attempts} ${event.reason}`));
    await timeouts.start();
    await timeouts.schedule('payment', 'poison', { at: clock.now() });
    const deadline = Date.now() + 5_000;
    while (!events.some((line) => line.startsWith('dead')) && Date.now() < deadline) {
      // Past the lease, then past the retry backoff: each step lets the pollers claim again.
      clock.advanceBy(deliveries.length > events.length ? 1_000 : 100);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(deliveries).toEqual([1, 2, 3]);
    expect(events).toEqual([
      `retried 1 lease_expired ${LEASE_EXPIRED_ERROR}`,
      `retried 2 lease_expired ${LEASE_EXPIRED_ERROR}`,
      'dead 3 lease_expired',
    ]);
    expect(await timeouts.get('payment', 'poison')).toMatchObject({ state: 'dead', attempt: 3, lastError: LEASE_EXPIRED_ERROR });
    await timeouts.stop({ drainMs: 0 });
  });

  it('keeps the event signal usable and unaborted for a normal delivery', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts({ topics: { payment: {} } });
    const seen: boolean[] = [];
    timeouts.handle('payment', (event) => {
      seen.push(event.signal.aborted);
    });
    await timeouts.schedule('payment', 'order-1', { delayMs: 10 });
    await advanceBy(10);
    expect(seen).toEqual([false]);
  });
});
