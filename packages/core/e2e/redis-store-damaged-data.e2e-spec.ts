import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { LEASE_EXPIRED_ERROR } from '../src/store/stored-error.js';
import type { LeaseExpiryPolicy, SlotRef } from '../src/store/timeout-store.js';
import { uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

// What the Redis store does with data it did not write: values in another layout, ids whose data
// is gone, ids left in two sets at once. Each case is written straight into Redis, as another
// tool, another version or a partial restore would leave it.

const slot: SlotRef = { topic: 'payment', slot: 0 };
const RETRY_AT_ONCE: LeaseExpiryPolicy = { maxAttempts: 16, backoff: { baseMs: 0, capMs: 0 } };

let server: RedisServer;
let raw: Redis;
let store: RedisTimeoutStore;

beforeAll(async () => {
  server = await RedisServer.start();
  raw = new Redis(server.url);
});

afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

afterEach(async () => {
  await store?.close();
});

function open(): RedisTimeoutStore {
  store = new RedisTimeoutStore({ connection: server.url, prefix: uniquePrefix() });
  return store;
}

/** Schedules `ids` due already, in that order. */
async function scheduleDue(ids: readonly string[]): Promise<void> {
  const now = await store.now();
  for (const [i, id] of ids.entries()) await store.writes.schedule(slot, id, { at: now - 100 + i, payload: JSON.stringify({ id }) });
}

const keys = () => store.keys.slot(slot.topic, slot.slot);
const dataKey = (id: string) => store.keys.dataKey(slot.topic, slot.slot, id);

describe('a claim that meets unreadable or missing data', () => {
  const corruptValues: [string, string][] = [
    ['no separator', '{"amount":42}'],
    ['a word for a number', 'abc|{"amount":42}'],
    ['two meta fields', '60000,2|{"amount":42}'],
    ['six meta fields', '1,2,3,4,5,6|{}'],
    ['a negative attempt count', '5,-1,0|{}'],
    ['an error length past the end', '5,1,900|short'],
    ['a number too large for an exact integer', '1,99999999999999999999,0|{}'],
    ['an empty value', ''],
  ];

  it.each(corruptValues)('dead-letters an entry with %s, names the problem, and fires the rest of the slot untouched', async (_what, value) => {
    open();
    await scheduleDue(['first', 'bad', 'last']);
    await raw.hset(dataKey('bad'), 'bad', value);
    const result = await store.deliveries.claim(slot, 10, 60_000);
    expect(result.claimed.map((entry) => [entry.id, entry.attempt, entry.payload])).toEqual([
      ['first', 1, '{"id":"first"}'],
      ['last', 1, '{"id":"last"}'],
    ]);
    expect(result.incidents).toEqual([{ id: 'bad', kind: 'corrupt', attempts: 0, at: result.now, error: expect.stringMatching(/^corrupt stored entry: /) }]);
    const dead = await store.reads.get(slot, 'bad');
    expect(dead).toMatchObject({ state: 'dead', attempt: 0, payload: value, lastError: result.incidents[0]!.error });
    const [letter] = await store.reads.listDead(slot, 0, 10);
    expect(letter).toMatchObject({ id: 'bad', lastError: result.incidents[0]!.error, payload: value, deadAt: result.now });
    // Nothing else was touched by the bad entry: the other two are acked as usual.
    expect(await store.deliveries.ackMany(slot, result.claimed)).toEqual(['acked', 'acked']);
    expect((await store.deliveries.claim(slot, 10, 60_000)).claimed).toEqual([]);
  });

  it('dead-letters a due id whose data is gone, and fires the rest', async () => {
    open();
    await scheduleDue(['a', 'gone', 'b']);
    await raw.hdel(dataKey('gone'), 'gone');
    const result = await store.deliveries.claim(slot, 10, 60_000);
    expect(result.claimed.map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(result.incidents).toEqual([{ id: 'gone', kind: 'missing', attempts: 0, at: result.now, error: expect.stringMatching(/^missing stored entry/) }]);
    expect(await store.reads.get(slot, 'gone')).toMatchObject({ state: 'dead', payload: 'null' });
    expect(await raw.zscore(keys().due, 'gone')).toBeNull();
  });

  it('dead-letters a leased id whose data was lost or damaged when its lease expires, and never invents a due time', async () => {
    open();
    await scheduleDue(['lost', 'damaged', 'fine']);
    const first = await store.deliveries.claim(slot, 10, 100);
    expect(first.claimed).toHaveLength(3);
    await raw.hdel(dataKey('lost'), 'lost');
    await raw.hset(dataKey('damaged'), 'damaged', '7|{"no":"token"}');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await store.deliveries.claim(slot, 10, 60_000, RETRY_AT_ONCE);
    expect(second.incidents.map((incident) => [incident.id, incident.kind])).toEqual([
      ['damaged', 'corrupt'],
      ['fine', 'lease_retried'],
      ['lost', 'missing'],
    ]);
    expect(second.claimed.map((entry) => [entry.id, entry.attempt])).toEqual([['fine', 2]]);
    expect(await raw.zscore(keys().due, 'lost')).toBeNull();
    expect(await raw.zscore(keys().due, 'damaged')).toBeNull();
    expect(await store.reads.get(slot, 'lost')).toMatchObject({ state: 'dead' });
    expect(await store.reads.get(slot, 'damaged')).toMatchObject({ state: 'dead', payload: '7|{"no":"token"}' });
  });

  it('keeps claiming the slot while a stored fencing counter is not a number', async () => {
    open();
    await scheduleDue(['t1']);
    await raw.set(keys().seq, 'not-a-number');
    const { claimed } = await store.deliveries.claim(slot, 10, 60_000);
    expect(claimed.map((entry) => entry.id)).toEqual(['t1']);
    expect(claimed[0]!.fencingToken).toBeGreaterThan(0);
  });

  it('reads damaged entries in get, listDead and replay without failing', async () => {
    open();
    await scheduleDue(['pending-bad']);
    await raw.hset(dataKey('pending-bad'), 'pending-bad', 'x,y|?');
    const info = await store.reads.get(slot, 'pending-bad');
    expect(info).toMatchObject({ state: 'pending', attempt: 0, payload: 'x,y|?', lastError: expect.stringMatching(/^corrupt stored entry/) });
    await raw.zadd(keys().dead, 1, 'dead-bad');
    await raw.hset(dataKey('dead-bad'), 'dead-bad', '??');
    await raw.zadd(keys().dead, 2, 'dead-gone');
    const letters = await store.reads.listDead(slot, 0, 10);
    expect(letters.map((letter) => [letter.id, letter.payload])).toEqual([
      ['dead-bad', '??'],
      ['dead-gone', 'null'],
    ]);
    expect(await store.reads.replayDead(slot, ['dead-bad'])).toBe(1);
    // Replayed with its raw text as the payload: the engine sees a payload that is not JSON.
    expect(await store.reads.get(slot, 'dead-bad')).toMatchObject({ state: 'pending', payload: '??', attempt: 0 });
  });

  it('refuses a failure record or a release for a damaged leased value, leaving it to the lease expiry', async () => {
    open();
    await scheduleDue(['f']);
    const [claimed] = (await store.deliveries.claim(slot, 10, 60_000)).claimed;
    await raw.hset(dataKey('f'), 'f', `1,1,0,x${claimed!.fencingToken},5|{}`);
    expect(await store.deliveries.fail(slot, 'f', claimed!.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 5 })).toEqual({ outcome: 'stale' });
    expect(await store.deliveries.release(slot, [claimed!])).toEqual({ released: 0, forwarded: [] });
    expect(await store.reads.get(slot, 'f')).toMatchObject({ state: 'firing' });
  });
});

describe('scheduling an id left in a broken state', () => {
  it('clears the lease of a leased id whose data was lost, so it is only pending (not recovered later with no due time)', async () => {
    open();
    await scheduleDue(['orphan']);
    const { claimed } = await store.deliveries.claim(slot, 10, 100);
    await raw.hdel(dataKey('orphan'), 'orphan');
    const again = await store.writes.schedule(slot, 'orphan', { delayMs: 60_000, payload: '"new"' });
    expect(again.outcome).toBe('replaced_firing');
    expect(await raw.zscore(keys().lease, 'orphan')).toBeNull();
    expect(await store.deliveries.ack(slot, 'orphan', claimed[0]!.fencingToken)).toBe('stale');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await store.deliveries.claim(slot, 10, 60_000);
    expect(later.incidents).toEqual([]);
    expect(await store.reads.get(slot, 'orphan')).toMatchObject({ state: 'pending', dueAt: again.dueAt, payload: '"new"' });
  });

  it('clears the dead letter of an id whose data was lost', async () => {
    open();
    await raw.zadd(keys().dead, 1, 'ghost');
    expect((await store.writes.schedule(slot, 'ghost', { delayMs: 60_000, payload: '1' })).outcome).toBe('created');
    expect(await raw.zscore(keys().dead, 'ghost')).toBeNull();
    expect(await store.reads.listDead(slot, 0, 10)).toEqual([]);
  });

  it('never acks a pending timeout with token 0, which would leave its id in due without data', async () => {
    open();
    await store.writes.schedule(slot, 'p', { delayMs: 60_000, payload: '1' });
    expect(await store.deliveries.ack(slot, 'p', 0)).toBe('stale');
    expect(await raw.hget(dataKey('p'), 'p')).not.toBeNull();
  });
});

describe('expired leases count as failed attempts', () => {
  it('dead-letters after maxAttempts deliveries whose leases all expired', async () => {
    open();
    await scheduleDue(['poison']);
    const policy: LeaseExpiryPolicy = { maxAttempts: 3, backoff: { baseMs: 0, capMs: 0 } };
    const deliveries: number[] = [];
    let incidents: string[] = [];
    await waitUntil(async () => {
      const result = await store.deliveries.claim(slot, 10, 50, policy);
      deliveries.push(...result.claimed.map((entry) => entry.attempt));
      incidents = incidents.concat(result.incidents.map((incident) => incident.kind));
      return incidents.includes('lease_dead');
    }, 10_000);
    expect(deliveries).toEqual([1, 2, 3]);
    expect(incidents).toEqual(['lease_retried', 'lease_retried', 'lease_dead']);
    expect(await store.reads.get(slot, 'poison')).toMatchObject({ state: 'dead', attempt: 3, lastError: LEASE_EXPIRED_ERROR });
  });
});

describe('fencing tokens after Redis lost its last writes', () => {
  it('never hands out a token at or below one handed before, after a restart from an older snapshot', async () => {
    const snapshotServer = await RedisServer.start();
    const snapshot = `${snapshotServer.dir}/older.rdb`;
    const prefix = uniquePrefix();
    const openOn = () => new RedisTimeoutStore({ connection: snapshotServer.url, prefix });
    try {
      let tokens: number[] = [];
      const first = openOn();
      const claimOne = async (target: RedisTimeoutStore, id: string) => {
        await target.writes.schedule(slot, id, { at: (await target.now()) - 1, payload: '1' });
        const [claimed] = (await target.deliveries.claim(slot, 10, 60_000)).claimed;
        tokens.push(claimed!.fencingToken);
        return claimed!;
      };
      await claimOne(first, 'before-snapshot');
      const admin = snapshotServer.client();
      await admin.save();
      copyFileSync(`${snapshotServer.dir}/dump.rdb`, snapshot);
      // Writes the restart will lose: the slot's counter moves on, in bursts that outrun the clock.
      for (let i = 0; i < 20; i++) await claimOne(first, `lost-${i}`);
      await first.close();
      const handedBefore = Math.max(...tokens);
      tokens = [];

      await snapshotServer.kill();
      copyFileSync(snapshot, `${snapshotServer.dir}/dump.rdb`);
      await snapshotServer.restart();
      const second = openOn();
      expect(await second.reads.get(slot, 'lost-0')).toBeNull();
      await claimOne(second, 'after-restart');
      await second.close();
      expect(tokens[0]).toBeGreaterThan(handedBefore);
    } finally {
      await snapshotServer.stop();
    }
  });
});
