import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import { TopicMigratingError } from '../src/errors/topic-migrating.error.js';
import { TopicSlotsMismatchError } from '../src/errors/topic-slots-mismatch.error.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { bucketOf } from '../src/store/slot-of.js';
import type { TimeoutEvent } from '../src/types.js';
import { uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

/** Records every handler run and every accepted ack of an engine, by id. */
function recordRuns(timeouts: DurableTimeouts<'payment'>, runs: Map<string, number>, acked: Map<string, number>, handlerMs = 0): void {
  timeouts.handle('payment', async (event: TimeoutEvent) => {
    runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
    if (handlerMs > 0) await new Promise((resolve) => setTimeout(resolve, handlerMs));
  });
  timeouts.on('fired', (event) => acked.set(event.id, (acked.get(event.id) ?? 0) + 1));
}

describe('changing the slot count of a topic', () => {
  it('refuses to start an instance configured with another slot count than the stored timeouts, saying how to migrate', async () => {
    const prefix = uniquePrefix();
    const first = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 16 } } });
    for (let i = 0; i < 40; i++) await first.schedule('payment', `order-${i}`, { delayMs: 60_000 });
    const other = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 8 } } });
    other.handle('payment', () => undefined);
    const failure = await other.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TopicSlotsMismatchError);
    expect((failure as Error).message).toMatch(/configured with 8 slots, but its timeouts are stored with 16 slots.*migrateSlots\('payment', 8\)/);
    await expect(other.get('payment', 'order-1')).rejects.toThrow(TopicSlotsMismatchError);
    expect((await first.stats('payment')).pending).toBe(40);
  });

  it('moves pending, firing and dead timeouts 16 -> 8 -> 32 while instances of the old and the new count run: none lost, none fired twice', async () => {
    const prefix = uniquePrefix();
    const runs = new Map<string, number>();
    const acked = new Map<string, number>();
    const options = (slots: number) => ({
      connection: server.url,
      prefix,
      topics: { payment: { slots, leaseMs: 30_000, maxAttempts: 1, backoff: { baseMs: 0 } } },
      sweepIntervalMs: 1_000,
    });
    // Dead letters, long-delayed timeouts, and a stream of timeouts due while the slots move.
    const broken = rig.open(options(16));
    broken.handle('payment', () => {
      throw new Error('always fails');
    });
    for (let i = 0; i < 30; i++) await broken.schedule('payment', `dead-${i}`, { delayMs: 0 });
    await broken.fireDue();
    expect((await broken.stats('payment')).dead).toBe(30);
    await broken.stop();
    const old = rig.open(options(16));
    recordRuns(old, runs, acked, 20);
    await old.start();
    for (let i = 0; i < 200; i++) await old.schedule('payment', `later-${i}`, { delayMs: 3_600_000, payload: { i } });
    const due: string[] = [];
    let scheduling = true;
    const producer = (async () => {
      for (let i = 0; scheduling; i++) {
        const id = `due-${i}`;
        await old.schedule('payment', id, { delayMs: 50 + (i % 200) });
        due.push(id);
        if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await waitUntil(() => due.length > 300, 10_000, 'producer');

    const shrink = await old.migrateSlots('payment', 8);
    expect(shrink).toMatchObject({ from: 16, to: 8, sourceSlots: 8 });
    expect(shrink.moved).toBeGreaterThan(100);
    // An instance of the new count starts now; the old one keeps running, following the move.
    const fresh = rig.open(options(8));
    recordRuns(fresh, runs, acked);
    await fresh.start();
    const grow = await fresh.migrateSlots('payment', 32);
    expect(grow).toMatchObject({ from: 8, to: 32, sourceSlots: 8 });
    scheduling = false;
    await producer;

    await waitUntil(() => due.every((id) => acked.has(id)), 20_000, 'every due timeout fired').catch(async (error: unknown) => {
      // Say where the missing ones are: lost, or stuck in some state.
      const missing = due.filter((id) => !acked.has(id));
      const states = await Promise.all(missing.slice(0, 5).map((id) => fresh.get('payment', id)));
      throw new Error(`${String(error)}: ${missing.length} missing, e.g. ${JSON.stringify(states)}`);
    });
    for (const id of due) {
      expect([id, runs.get(id)]).toEqual([id, 1]);
      expect([id, acked.get(id)]).toEqual([id, 1]);
    }
    for (const engine of [old, fresh]) {
      expect(await engine.stats('payment')).toMatchObject({ pending: 200, firing: 0, dead: 30 });
      expect(await engine.get('payment', 'later-7')).toMatchObject({ state: 'pending', payload: { i: 7 } });
      expect((await engine.listDead('payment')).map((letter) => letter.id).sort()).toHaveLength(30);
    }
    expect(await old.cancel('payment', 'later-7')).toBe('cancelled');
    expect(await fresh.cancel('payment', 'later-8')).toBe('cancelled');
    expect(await fresh.get('payment', 'later-7')).toBeNull();
    expect(await fresh.replayDead('payment', ['dead-3', 'dead-4'])).toBe(2);
    await waitUntil(() => acked.has('dead-3') && acked.has('dead-4'), 10_000, 'replayed dead letters fired');

    // From now on only the new count may start.
    const late = rig.open(options(16));
    await expect(late.start()).rejects.toThrow(TopicSlotsMismatchError);
    const current = rig.open(options(32));
    expect(await current.get('payment', 'later-9')).toMatchObject({ state: 'pending' });
  }, 60_000);

  it('finishes a migration that stopped half-way when it is run again', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 16 } } });
    for (let i = 0; i < 500; i++) await timeouts.schedule('payment', `order-${i}`, { delayMs: 3_600_000 });
    const stopped = await timeouts
      .migrateSlots('payment', 4, {
        onProgress: ({ done }) => {
          if (done === 3) throw new Error('the process died');
        },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect((stopped as Error).message).toBe('the process died');
    // Half-way: every timeout is still found, in its old slot or in its new one.
    for (let i = 0; i < 500; i += 50) expect(await timeouts.get('payment', `order-${i}`)).toMatchObject({ state: 'pending' });
    const resumed = await timeouts.migrateSlots('payment', 4);
    expect(resumed).toMatchObject({ from: 16, to: 4 });
    const store = new RedisTimeoutStore({ connection: server.url, prefix });
    try {
      expect(await store.layout.readLayout('payment')).toEqual({ slots: 4 });
      let total = 0;
      for (let slot = 0; slot < 16; slot++) total += (await store.reads.stats({ topic: 'payment', slot })).pending;
      expect(total).toBe(500);
      for (let slot = 4; slot < 16; slot++) expect((await store.reads.stats({ topic: 'payment', slot })).pending).toBe(0);
    } finally {
      await store.close();
    }
    expect((await timeouts.stats('payment')).pending).toBe(500);
  });

  it('makes a call wait for a slot being moved, then fails with TopicMigratingError when the move does not end', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 1 } }, commandTimeoutMs: 200 });
    await timeouts.schedule('payment', 'order-1', { delayMs: 60_000 });
    await timeouts.store.layout.markSlot({ topic: 'payment', slot: 0 }, { slots: 2, movingBucket: bucketOf('order-1') });
    const started = performance.now();
    await expect(timeouts.get('payment', 'order-1')).rejects.toThrow(TopicMigratingError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    const waiting = timeouts.cancel('payment', 'order-1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await timeouts.store.layout.markSlot({ topic: 'payment', slot: 0 }, null);
    expect(await waiting).toBe('cancelled');
  });

  it('refuses a slot count that is not a power of two, and a second migration while one runs', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 4 } } });
    await expect(timeouts.migrateSlots('payment', 12)).rejects.toThrow(/power of two/);
    await timeouts.store.layout.beginMigration('payment', 4, 8);
    await expect(timeouts.migrateSlots('payment', 2)).rejects.toThrow(/already being moved from 4 to 8/);
    expect(await timeouts.migrateSlots('payment', 8)).toMatchObject({ from: 4, to: 8 });
  });
});
