import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { TimeoutEvent } from '../src/types.js';
import { nextEvent, uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

describe('DurableTimeouts on one Redis server', () => {
  it('schedules, fires once with the payload and acks (the timeout is gone)', async () => {
    const timeouts = rig.open<{ payment: { amount: number } }>({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 4 } } });
    const fired: TimeoutEvent<{ amount: number }>[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event);
    });
    await timeouts.start();
    const acked = nextEvent(timeouts, 'fired');
    const scheduled = await timeouts.schedule('payment', 'order-1', { delayMs: 150, payload: { amount: 42 } });
    expect(scheduled).toMatchObject({ topic: 'payment', id: 'order-1', outcome: 'created' });
    const firedEvent = await acked;
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ id: 'order-1', payload: { amount: 42 }, attempt: 1, dueAt: scheduled.dueAt });
    expect(fired[0]!.fencingToken).toBeGreaterThan(0);
    expect(firedEvent).toMatchObject({ topic: 'payment', id: 'order-1', attempt: 1, dueAt: scheduled.dueAt });
    expect(firedEvent.latenessMs).toBeGreaterThanOrEqual(0);
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
    const stats = await timeouts.stats('payment');
    expect(stats).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  });

  it('calls on one id from one instance take effect in the order they were made', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.start();
    const scheduled = timeouts.schedule('payment', 'order-1', { delayMs: 100 });
    expect(await timeouts.cancel('payment', 'order-1')).toBe('cancelled');
    expect((await scheduled).outcome).toBe('created');
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
    // A timeout due later fires: had the first survived the cancel, it would have fired before it.
    const probe = nextEvent(timeouts, 'fired');
    await timeouts.schedule('payment', 'order-1-probe', { delayMs: 200 });
    await probe;
    expect(fired).toEqual(['order-1-probe']);
  });

  it('upsert: the last schedule wins for due time and payload, and fires once', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    const fired: TimeoutEvent[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event);
    });
    const acked: string[] = [];
    timeouts.on('fired', (event) => acked.push(event.id));
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 60_000, payload: 'first' });
    const second = await timeouts.schedule('payment', 'order-1', { delayMs: 100, payload: 'second' });
    expect(second.outcome).toBe('replaced');
    // `fired` is emitted once the ack is stored: from then on the timeout is gone.
    await waitUntil(() => acked.length === 1, 5_000, 'fire');
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ payload: 'second', dueAt: second.dueAt });
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
  });

  it('a cancelled timeout never fires (a later one in the same slot does)', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 1 } } });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.start();
    await timeouts.schedule('payment', 'cancelled', { delayMs: 100 });
    await timeouts.schedule('payment', 'sentinel', { delayMs: 300 });
    expect(await timeouts.cancel('payment', 'cancelled')).toBe('cancelled');
    expect(await timeouts.cancel('payment', 'cancelled')).toBe('not_found');
    expect(await timeouts.get('payment', 'cancelled')).toBeNull();
    await waitUntil(() => fired.includes('sentinel'), 5_000, 'sentinel fired');
    expect(fired).toEqual(['sentinel']);
  });

  it('cancel while the handler runs says firing and removes the timeout; get reports each state', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { leaseMs: 10_000 } } });
    let release!: () => void;
    const handlerBlocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    timeouts.handle('payment', async () => {
      started = true;
      await handlerBlocked;
    });
    const scheduled = await timeouts.schedule('payment', 'order-1', { delayMs: 50, payload: { n: 1 } });
    const pending = await timeouts.get('payment', 'order-1');
    expect(pending).toMatchObject({ state: 'pending', dueAt: scheduled.dueAt, attempt: 0, payload: { n: 1 } });
    expect(pending!.scheduledAt).toBeLessThanOrEqual(scheduled.dueAt);
    await timeouts.start();
    await waitUntil(() => started, 5_000, 'handler started');
    const firing = await timeouts.get('payment', 'order-1');
    expect(firing).toMatchObject({ state: 'firing', attempt: 1, payload: { n: 1 } });
    expect(firing!.leaseExpiresAt).toBeGreaterThan(scheduled.dueAt);
    expect(await timeouts.cancel('payment', 'order-1')).toBe('firing');
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
    release();
    // What the running handler sees and what becomes of it: engine-cancel-running.e2e-spec.ts.
  });

  it('a schedule while the handler runs replaces it: the running ack is stale and the new one fires', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const payloads: unknown[] = [];
    timeouts.handle('payment', async (event) => {
      payloads.push(event.payload);
      if (payloads.length === 1) await blocked;
    });
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 0, payload: 'first' });
    await waitUntil(() => payloads.length === 1, 5_000, 'first delivery');
    const stale = nextEvent(timeouts, 'stale');
    const replaced = await timeouts.schedule('payment', 'order-1', { delayMs: 100, payload: 'second' });
    expect(replaced.outcome).toBe('replaced_firing');
    release();
    expect(await stale).toMatchObject({ id: 'order-1', attempt: 1 });
    await waitUntil(() => payloads.length === 2, 5_000, 'second delivery');
    expect(payloads).toEqual(['first', 'second']);
  });

  it('retries with backoff, dead-letters after maxAttempts with the error, then lists, replays and purges', async () => {
    const backoff = { baseMs: 100, capMs: 150 };
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { maxAttempts: 3, backoff } } });
    const deliveries: { attempt: number; dueAt: number }[] = [];
    let failing = true;
    timeouts.handle('payment', (event) => {
      deliveries.push({ attempt: event.attempt, dueAt: event.dueAt });
      if (failing) throw new Error(`declined (attempt ${event.attempt})`);
    });
    const retried: { attempt: number; retryAt: number }[] = [];
    timeouts.on('retried', (event) => retried.push(event));
    const dead = nextEvent(timeouts, 'dead');
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 0, payload: { amount: 5 } });
    expect(await dead).toMatchObject({ topic: 'payment', id: 'order-1', attempts: 3 });
    expect(deliveries.map((delivery) => delivery.attempt)).toEqual([1, 2, 3]);
    expect(retried.map((event) => event.attempt)).toEqual([1, 2]);
    for (let i = 0; i < 2; i++) {
      // The retry is due at fail time + a delay in [d/2, d]; the next delivery carries that due time.
      const d = Math.min(backoff.capMs, backoff.baseMs * 2 ** i);
      expect(deliveries[i + 1]!.dueAt).toBe(retried[i]!.retryAt);
      expect(retried[i]!.retryAt - deliveries[i]!.dueAt).toBeGreaterThanOrEqual(d / 2);
    }
    const info = await timeouts.get('payment', 'order-1');
    expect(info).toMatchObject({ state: 'dead', attempt: 3, lastError: 'declined (attempt 3)', payload: { amount: 5 } });
    expect(await timeouts.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 1 });
    const letters = await timeouts.listDead('payment');
    expect(letters).toEqual([
      expect.objectContaining({ topic: 'payment', id: 'order-1', attempts: 3, lastError: 'declined (attempt 3)', payload: { amount: 5 } }),
    ]);
    failing = false;
    const refired = nextEvent(timeouts, 'fired', (event) => event.id === 'order-1');
    expect(await timeouts.replayDead('payment', ['order-1'])).toBe(1);
    expect((await refired).attempt).toBe(1);
    expect(await timeouts.listDead('payment')).toEqual([]);

    failing = true;
    const deadAgain = nextEvent(timeouts, 'dead');
    await timeouts.schedule('payment', 'order-2', { delayMs: 0 });
    await deadAgain;
    expect(await timeouts.purgeDead('payment')).toBe(1);
    expect(await timeouts.get('payment', 'order-2')).toBeNull();
    expect(await timeouts.stats('payment')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  });

  it('lists dead letters of many slots oldest first, in pages', async () => {
    const timeouts = rig.open({
      connection: server.url,
      prefix: uniquePrefix(),
      topics: { payment: { slots: 8, maxAttempts: 1 } },
    });
    timeouts.handle('payment', () => {
      throw new Error('no');
    });
    let deadCount = 0;
    timeouts.on('dead', () => deadCount++);
    await timeouts.start();
    const ids = Array.from({ length: 12 }, (_, i) => `order-${i}`);
    for (const id of ids) await timeouts.schedule('payment', id, { delayMs: 0 });
    await waitUntil(() => deadCount === ids.length, 5_000, 'all dead');
    const all = await timeouts.listDead('payment', { limit: 100 });
    expect(all.map((letter) => letter.id).sort()).toEqual([...ids].sort());
    for (let i = 1; i < all.length; i++) expect(all[i]!.deadAt).toBeGreaterThanOrEqual(all[i - 1]!.deadAt);
    const page = await timeouts.listDead('payment', { offset: 5, limit: 4 });
    expect(page.map((letter) => letter.id)).toEqual(all.slice(5, 9).map((letter) => letter.id));
    expect(await timeouts.purgeDead('payment', ['order-0', 'order-1', 'missing'])).toBe(2);
    expect(await timeouts.replayDead('payment')).toBe(10);
  });

  it('emits scheduled and cancelled, and reports health', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 2 } } });
    const seen: string[] = [];
    timeouts.on('scheduled', (event) => seen.push(`scheduled ${event.id} ${event.outcome}`));
    timeouts.on('cancelled', (event) => seen.push(`cancelled ${event.id}`));
    timeouts.handle('payment', () => undefined);
    expect(await timeouts.health()).toMatchObject({ running: false, maxPollerIdleMs: null, inFlight: 0 });
    await timeouts.start();
    await timeouts.schedule('payment', 'a', { delayMs: 60_000 });
    await timeouts.schedule('payment', 'a', { at: new Date(Date.now() + 120_000) });
    await timeouts.cancel('payment', 'a');
    expect(seen).toEqual(['scheduled a created', 'scheduled a replaced', 'cancelled a']);
    const health = await timeouts.health();
    expect(health.running).toBe(true);
    expect(health.redisLatencyMs).toEqual(expect.any(Number));
    expect(health.maxPollerIdleMs).toBeGreaterThanOrEqual(0);
    await timeouts.stop();
    expect(await timeouts.health()).toMatchObject({ running: false, redisLatencyMs: null });
  });

  it('never closes a connection it was given', async () => {
    const given = server.client();
    const timeouts = rig.open({ connection: given, prefix: uniquePrefix(), topics: { payment: { slots: 2 } } });
    timeouts.handle('payment', () => undefined);
    await timeouts.start();
    await timeouts.schedule('payment', 'a', { delayMs: 60_000 });
    await timeouts.stop();
    expect(given.status).toBe('ready');
    expect(await given.ping()).toBe('PONG');
  });
});
