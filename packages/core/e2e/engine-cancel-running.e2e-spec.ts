import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { TimeoutCancelledError } from '../src/errors/timeout-cancelled.error.js';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import type { TimeoutEvent } from '../src/types.js';
import { uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Two engines on one Redis: `a` handles the topic (and alone runs handlers), `b` only schedules
 * and cancels, as another process would. `order` records, in the order they happen, what `a`'s
 * handler and events saw.
 */
function twoInstances() {
  const prefix = uniquePrefix();
  // No sweep within a test: every claim comes from a wake-up, which travels on the same channel
  // as the cancel notices, in the order Redis published them.
  const options = { connection: server.url, prefix, sweepIntervalMs: 3_600_000, topics: { payment: { leaseMs: 30_000, maxAttempts: 3 } } };
  const a = rig.open(options);
  const b = rig.open(options);
  const order: string[] = [];
  for (const name of ['fired', 'retried', 'dead', 'stale'] as const) a.on(name, (event) => order.push(`${name} ${event.id}`));
  return { a, b, order };
}

/**
 * Registers on `a` a handler that records its start, waits until its signal aborts or the
 * `marker` timeout starts (whichever comes first), records which, then calls `end`. The marker is
 * scheduled after the cancel: its wake-up is published after the cancel's notice, so a notice
 * that works is heard before the marker can start.
 */
function handleUntilAbortOrMarker(a: DurableTimeouts, order: string[], end: (event: TimeoutEvent) => void | Promise<void>) {
  const marker = signal();
  const started = new Map<string, ReturnType<typeof signal>>();
  const ended = new Map<string, ReturnType<typeof signal>>();
  const startedOf = (id: string) => started.get(id) ?? started.set(id, signal()).get(id)!;
  const endedOf = (id: string) => ended.get(id) ?? ended.set(id, signal()).get(id)!;
  a.handle('payment', async (event) => {
    order.push(`start ${event.id}`);
    if (event.id === 'marker') {
      marker.resolve();
      return;
    }
    const aborted = new Promise<void>((resolve) => event.signal.addEventListener('abort', () => resolve(), { once: true }));
    startedOf(event.id).resolve();
    await Promise.race([aborted, marker.promise]);
    try {
      // What a handler does before its side effect.
      if (event.signal.aborted) order.push(`aborted ${event.id} ${(event.signal.reason as Error).name}`);
      else order.push(`side effect ${event.id}`);
      await end(event);
    } finally {
      endedOf(event.id).resolve();
    }
  });
  return { started: (id: string) => startedOf(id).promise, ended: (id: string) => endedOf(id).promise, marker: marker.promise };
}

describe('cancel of a firing timeout reaches its running handler', () => {
  it('a cancel on instance B aborts the handler running on instance A with TimeoutCancelledError; its throw is not retried nor dead-lettered', async () => {
    const { a, b, order } = twoInstances();
    let reason: unknown;
    const run = handleUntilAbortOrMarker(a, order, (event) => {
      reason = event.signal.reason;
      if (event.signal.aborted) throw event.signal.reason;
    });
    await a.start();
    await b.schedule('payment', 'order-1', { delayMs: 0, payload: null });
    await run.started('order-1');
    const cancelled: unknown[] = [];
    b.on('cancelled', (event) => cancelled.push(event));
    expect(await b.cancel('payment', 'order-1')).toBe('firing');
    // The cancelling instance reports it (metrics count it), as a cancel of a running handler.
    expect(cancelled).toEqual([{ topic: 'payment', id: 'order-1', firing: true }]);
    await b.schedule('payment', 'marker', { delayMs: 0, payload: null });
    await Promise.all([run.marker, run.ended('order-1')]);
    await waitUntil(() => order.includes('fired marker'), 10_000, 'marker acked');
    // The abort came before the marker's wake-up; no retry, dead letter or stale ack for order-1.
    expect(order).toEqual(['start order-1', 'aborted order-1 TimeoutCancelledError', 'start marker', 'fired marker']);
    expect(reason).toBeInstanceOf(TimeoutCancelledError);
    expect((reason as Error).message).toContain('"order-1"');
    expect(await b.get('payment', 'order-1')).toBeNull();
    expect(await b.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
    expect((await a.health()).inFlight).toBe(0);
  });

  it('cancelMany aborts every running delivery it removed; a handler that returns after the abort is not acked as fired', async () => {
    const { a, b, order } = twoInstances();
    const run = handleUntilAbortOrMarker(a, order, () => undefined);
    await a.start();
    await b.scheduleMany('payment', [
      { id: 'run-1', delayMs: 0, payload: null },
      { id: 'run-2', delayMs: 0, payload: null },
    ]);
    await Promise.all([run.started('run-1'), run.started('run-2')]);
    const cancelled: unknown[] = [];
    b.on('cancelled', (event) => cancelled.push(event));
    const results = await b.cancelMany('payment', ['run-1', 'run-2', 'never-was']);
    expect(results.map((item) => (item.ok ? item.result : item.error))).toEqual(['firing', 'firing', 'not_found']);
    expect(cancelled).toEqual([
      { topic: 'payment', id: 'run-1', firing: true },
      { topic: 'payment', id: 'run-2', firing: true },
    ]);
    await b.schedule('payment', 'marker', { delayMs: 0, payload: null });
    await Promise.all([run.marker, run.ended('run-1'), run.ended('run-2')]);
    await waitUntil(() => order.includes('fired marker'), 10_000, 'marker acked');
    const upToMarker = order.slice(0, order.indexOf('start marker'));
    expect(upToMarker.sort()).toEqual(['aborted run-1 TimeoutCancelledError', 'aborted run-2 TimeoutCancelledError', 'start run-1', 'start run-2']);
    expect(order.slice(order.indexOf('start marker'))).toEqual(['start marker', 'fired marker']);
    expect(await b.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  });

  it('a cancel of a pending timeout aborts nothing, not even a stale delivery of the same id still running', async () => {
    const { a, b, order } = twoInstances();
    const run = handleUntilAbortOrMarker(a, order, () => undefined);
    await a.start();
    await b.schedule('payment', 'order-1', { delayMs: 0, payload: null });
    await run.started('order-1');
    // Rescheduled while it runs: the running delivery is stale, the id pending again.
    expect((await b.schedule('payment', 'order-1', { delayMs: 3_600_000, payload: null })).outcome).toBe('replaced_firing');
    await b.schedule('payment', 'other', { delayMs: 3_600_000, payload: null });
    const cancelled: unknown[] = [];
    b.on('cancelled', (event) => cancelled.push(event));
    expect(await b.cancel('payment', 'order-1')).toBe('cancelled');
    expect(await b.cancelMany('payment', ['other'])).toMatchObject([{ ok: true, result: 'cancelled' }]);
    expect(cancelled).toEqual([
      { topic: 'payment', id: 'order-1', firing: false },
      { topic: 'payment', id: 'other', firing: false },
    ]);
    await b.schedule('payment', 'marker', { delayMs: 0, payload: null });
    await Promise.all([run.marker, run.ended('order-1')]);
    await waitUntil(() => order.includes('stale order-1') && order.includes('fired marker'), 10_000, 'acks settled');
    // Not aborted: the handler went on to its side effect when the marker started; its ack was stale (replaced).
    expect(order.slice(0, 3)).toEqual(['start order-1', 'start marker', 'side effect order-1']);
    expect([...order.slice(3)].sort()).toEqual(['fired marker', 'stale order-1']);
  });

  it('the instance that cancels aborts its own running delivery before cancel returns, without a subscription (an engine never started)', async () => {
    const { a, order } = twoInstances();
    const started = signal();
    const cancelReturned = signal();
    a.handle('payment', async (event) => {
      order.push(`start ${event.id}`);
      started.resolve();
      // Recorded in the listener itself, as the abort happens.
      const aborted = new Promise<void>((resolve) =>
        event.signal.addEventListener('abort', () => resolve(void order.push(`aborted ${(event.signal.reason as Error).name}`)), { once: true }),
      );
      await Promise.race([aborted, cancelReturned.promise]);
      if (!event.signal.aborted) order.push('side effect');
    });
    await a.schedule('payment', 'order-1', { delayMs: 0, payload: null });
    const fired = a.fireDue();
    await started.promise;
    const result = await a.cancel('payment', 'order-1');
    order.push(`cancel ${result}`);
    cancelReturned.resolve();
    expect(await fired).toBe(1);
    expect(order).toEqual(['start order-1', 'aborted TimeoutCancelledError', 'cancel firing']);
    expect(await a.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  });
});
