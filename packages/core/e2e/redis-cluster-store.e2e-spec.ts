import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { RedisCluster, waitUntil } from '@durable-timeout/redis-testing';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { describeTimeoutStoreContract } from '../test/timeout-store.contract.js';
import { redisContractContext } from '../test/redis-contract-context.js';
import { TimeoutKeys } from '../src/store/timeout-keys.js';
import { slotOf } from '../src/store/slot-of.js';

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await RedisCluster.start({ masters: 3 });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describeTimeoutStoreContract('Redis Cluster, 3 masters', async () => redisContractContext({ cluster: cluster.startupNodes }, `t${randomUUID().slice(0, 8)}`));

describe('RedisTimeoutStore on a Redis Cluster', () => {
  /** Port of the master serving each hash slot range, from CLUSTER SLOTS. */
  async function masterOfKey(client: Cluster, key: string): Promise<number> {
    const hashSlot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
    const range = ranges.find(([from, to]) => hashSlot >= from && hashSlot <= to);
    if (!range) throw new Error(`no master serves hash slot ${hashSlot}`);
    return range[2][1];
  }

  it('spreads the slots of a 16-slot topic over all three masters', async () => {
    const client = cluster.client();
    try {
      const keys = new TimeoutKeys('dt');
      const masters = new Set<number>();
      for (let slot = 0; slot < 16; slot++) {
        const slotKeys = keys.slot('payment', slot);
        const master = await masterOfKey(client, slotKeys.due);
        masters.add(master);
        // Every key of a slot lives on the same hash slot, so every script stays on one node.
        for (const key of [slotKeys.lease, slotKeys.dead, slotKeys.seq, slotKeys.buckets[0]!, slotKeys.buckets.at(-1)!]) {
          expect(await client.call('CLUSTER', 'KEYSLOT', key)).toBe(await client.call('CLUSTER', 'KEYSLOT', slotKeys.due));
        }
      }
      expect(masters.size).toBe(3);
    } finally {
      await client.quit();
    }
  });

  it('works through a Cluster instance it was given, across all slots, and leaves it open', async () => {
    const given = cluster.client();
    const store = new RedisTimeoutStore({ connection: given, prefix: `t${randomUUID().slice(0, 8)}` });
    try {
      await store.init([{ name: 'payment', slots: 16 }]);
      const now = await store.now();
      const ids = Array.from({ length: 64 }, (_, i) => `{order}:${i}`);
      await Promise.all(ids.map((id) => store.writes.schedule({ topic: 'payment', slot: slotOf(id, 16) }, id, { at: now - 1, payload: `"${id}"` })));
      const fired: string[] = [];
      for (let slot = 0; slot < 16; slot++) {
        const { claimed } = await store.deliveries.claim({ topic: 'payment', slot }, 100, 60_000);
        for (const entry of claimed) {
          expect(entry.payload).toBe(`"${entry.id}"`);
          fired.push(entry.id);
        }
        const acks = await store.deliveries.ackMany({ topic: 'payment', slot }, claimed.map(({ id, fencingToken }) => ({ id, fencingToken })));
        expect(acks.every((result) => result === 'acked')).toBe(true);
      }
      expect(fired.sort()).toEqual([...ids].sort());
    } finally {
      await store.close();
    }
    expect(given.status).toBe('ready');
    await given.quit();
  });

  it('runs calls of every script on many shards at once through its own auto-pipelined connection', async () => {
    const store = new RedisTimeoutStore({ connection: { cluster: cluster.startupNodes }, prefix: `t${randomUUID().slice(0, 8)}` });
    const slots = Array.from({ length: 16 }, (_, slot) => ({ topic: 'payment', slot }));
    try {
      const now = await store.now();
      const ids = Array.from({ length: 160 }, (_, i) => `burst-${i}`);
      const slotOfId = (id: string) => ({ topic: 'payment', slot: slotOf(id, 16) });
      // Every call below is made in one tick per step, so ioredis pipelines commands of all shards together.
      await Promise.all(ids.map((id) => store.writes.schedule(slotOfId(id), id, { at: now - 1, payload: '"b"' })));
      const claims = await Promise.all(slots.map((slot) => store.deliveries.claim(slot, 100, 60_000)));
      expect(claims.flatMap((claim) => claim.claimed.map((entry) => entry.id)).sort()).toEqual([...ids].sort());
      const firstHalf = claims.map((claim) => claim.claimed.slice(0, Math.ceil(claim.claimed.length / 2)));
      const acked = await Promise.all(slots.map((slot, i) => store.deliveries.ackMany(slot, firstHalf[i]!.map(({ id, fencingToken }) => ({ id, fencingToken })))));
      expect(acked.flat().every((result) => result === 'acked')).toBe(true);
      const rest = claims.map((claim, i) => claim.claimed.slice(firstHalf[i]!.length));
      const released = await Promise.all(slots.map((slot, i) => store.deliveries.release(slot, rest[i]!.map(({ id, fencingToken }) => ({ id, fencingToken })))));
      const again = await Promise.all(slots.map((slot) => store.deliveries.claim(slot, 100, 60_000)));
      const failed = await Promise.all(
        again.flatMap((claim, i) => claim.claimed.map((entry) => store.deliveries.fail(slots[i]!, entry.id, entry.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 }))),
      );
      expect(failed.every((outcome) => outcome.outcome === 'dead')).toBe(true);
      const dead = await Promise.all(slots.map((slot) => store.reads.listDead(slot, 0, 100)));
      expect(dead.flat()).toHaveLength(released.reduce((sum, result) => sum + result.released, 0));
      const replayed = await Promise.all(slots.map((slot) => store.reads.replayDead(slot)));
      const purgedAfterClaim = await Promise.all(slots.map((slot) => store.reads.purgeDead(slot)));
      const stats = await Promise.all(slots.map((slot) => store.reads.stats(slot)));
      expect(replayed.reduce((sum, count) => sum + count, 0)).toBe(dead.flat().length);
      expect(purgedAfterClaim.every((count) => count === 0)).toBe(true);
      expect(stats.reduce((sum, slotStats) => sum + slotStats.pending, 0)).toBe(dead.flat().length);
    } finally {
      await store.close();
    }
  });

  it('delivers wake-ups through the cluster and re-subscribes after every node restarted', async () => {
    const own = await RedisCluster.start({ masters: 3 });
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const store = new RedisTimeoutStore({ connection: { cluster: own.startupNodes }, prefix, commandTimeoutMs: 500 });
    const peer = new RedisTimeoutStore({ connection: { cluster: own.startupNodes }, prefix });
    const wakes: Array<{ slot: number; dueAt: number }> = [];
    let resubscribed = 0;
    try {
      // Connected before the first calls, so the short commandTimeoutMs above bounds the calls after
      // the restart and not how long a cold cluster connection takes on a busy machine.
      await Promise.all([store.connection.connect(), peer.connection.connect()]);
      const unsubscribe = await peer.subscribe(['payment'], (slot, dueAt) => wakes.push({ slot: slot.slot, dueAt }), () => resubscribed++);
      // Slots 0..15 live on all three masters: a wake-up from each reaches the one subscriber.
      for (let slot = 0; slot < 16; slot++) {
        const { dueAt } = await store.writes.schedule({ topic: 'payment', slot }, `before-${slot}`, { delayMs: 60_000, payload: 'null' });
        await waitUntil(() => wakes.some((wake) => wake.slot === slot && wake.dueAt === dueAt));
      }
      for (const node of own.nodes) await node.kill();
      for (const node of own.nodes) await node.restart();
      await waitUntil(() => resubscribed >= 1, 30_000);
      const slot = { topic: 'payment', slot: 7 };
      // The cluster may still be settling after the restart (a refused schedule, or a node whose
      // bus links are not all up yet, so a PUBLISH does not reach every node): schedule ever
      // earlier timeouts (each one moves the slot's earliest due time, so each publishes) until the
      // subscriber hears one.
      const sent: number[] = [];
      await waitUntil(async () => {
        try {
          // Earlier than every one sent before (the clock moves on between tries): only a new
          // earliest due time publishes, so a later one would never be heard.
          const at = Math.min((await store.now()) - 1, (sent.at(-1) ?? Infinity) - 1);
          sent.push((await store.writes.schedule(slot, `after-${sent.length}`, { at, payload: 'null' })).dueAt);
        } catch {
          return false;
        }
        const heard = async () => wakes.some((wake) => wake.slot === 7 && sent.includes(wake.dueAt));
        return waitUntil(heard, 2_000).then(() => true, () => false);
      }, 60_000, 'a wake-up heard after the restart');
      await unsubscribe();
    } finally {
      await store.close();
      await peer.close();
      await own.stop();
    }
  }, 150_000);
});

