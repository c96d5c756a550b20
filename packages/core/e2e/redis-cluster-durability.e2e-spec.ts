import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCluster, type RedisServer } from '@durable-timeout/redis-testing';
import { DurabilityUnconfirmedError } from '../src/store/durability-unconfirmed.error.js';
import { TimeoutKeys } from '../src/store/timeout-keys.js';
import { EngineRig, recordingLogger, uniquePrefix } from './fixtures/engine-helpers.js';

let cluster: RedisCluster;
const rig = new EngineRig();

beforeAll(async () => {
  cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1 });
}, 120_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await cluster?.stop();
});

/** The replica (per INFO replication) of the master serving `key`. */
async function replicaOf(key: string): Promise<{ master: RedisServer; replica: RedisServer }> {
  const master = await cluster.masterOf(key);
  for (const replica of await cluster.replicas()) {
    if (new RegExp(`master_port:${master.port}\\b`).test(await replica.client().info('replication'))) return { master, replica };
  }
  throw new Error(`no replica of the master on port ${master.port}`);
}

async function waitCalls(node: RedisServer): Promise<number> {
  return Number(/cmdstat_wait:calls=(\d+)/.exec(await node.client().info('commandstats'))?.[1] ?? 0);
}

/** Two one-slot topics whose slots live on different masters. */
async function topicsOnTwoMasters(prefix: string): Promise<{ paused: string; healthy: string }> {
  const keys = new TimeoutKeys(prefix);
  const paused = 'payment';
  const pausedMaster = await cluster.masterOf(keys.slot(paused, 0).due);
  for (let i = 0; i < 50; i++) {
    const healthy = `other${i}`;
    if ((await cluster.masterOf(keys.slot(healthy, 0).due)).port !== pausedMaster.port) return { paused, healthy };
  }
  throw new Error('no topic on a second master');
}

describe('durability on a Redis Cluster: WAIT on the master that took the write', () => {
  it('sends the WAIT to the masters that took the writes, one per master for concurrent calls', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: { cluster: cluster.startupNodes }, prefix, durability: { replicas: 1 }, topics: { payment: { slots: 16 } } });
    await timeouts.schedule('payment', 'warm-up', { delayMs: 60_000 });
    const masters = await cluster.masters();
    const before = await Promise.all(masters.map(waitCalls));
    await Promise.all(Array.from({ length: 200 }, (_, i) => timeouts.schedule('payment', `order-${i}`, { delayMs: 60_000 })));
    const waits = (await Promise.all(masters.map(waitCalls))).map((calls, i) => calls - before[i]!);
    // 16 slots spread over the three masters: each took writes and got at least one WAIT, and far
    // fewer WAITs than calls (200 calls).
    expect(waits.every((count) => count >= 1)).toBe(true);
    expect(waits.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(12);
    for (const replica of await cluster.replicas()) expect(await waitCalls(replica)).toBe(0);
    await expect(timeouts.cancel('payment', 'order-1')).resolves.toBe('cancelled');
  });

  it("refuses (or warns) when the slot's master has no replica answering, while other masters confirm; resolves once the replica has the write", async () => {
    const prefix = uniquePrefix();
    const { paused, healthy } = await topicsOnTwoMasters(prefix);
    const keys = new TimeoutKeys(prefix);
    const { replica } = await replicaOf(keys.slot(paused, 0).due);
    const topics = { [paused]: { slots: 1 }, [healthy]: { slots: 1 } };
    const connection = { cluster: cluster.startupNodes };
    const logger = recordingLogger();
    const refusing = rig.open({ connection, prefix, durability: { replicas: 1, timeoutMs: 200 }, topics, logger: null });
    const warning = rig.open({ connection, prefix, durability: { replicas: 1, timeoutMs: 200, onUnavailable: 'warn' }, topics, logger });
    await refusing.schedule(paused, 'before', { delayMs: 60_000 });
    await warning.schedule(paused, 'before-warn', { delayMs: 60_000 });
    replica.pause();
    let resumedAt = Infinity;
    try {
      const error = await refusing.schedule(paused, 'unconfirmed', { delayMs: 60_000 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DurabilityUnconfirmedError);
      expect(error).toMatchObject({ operation: 'schedule', required: 1, confirmed: 0 });
      expect((await refusing.get(paused, 'unconfirmed'))?.state).toBe('pending');
      await expect(refusing.cancel(paused, 'before')).rejects.toBeInstanceOf(DurabilityUnconfirmedError);
      const [bulk] = await refusing.cancelMany(paused, ['unconfirmed']);
      expect(bulk).toMatchObject({ ok: false });
      expect(bulk?.ok === false && bulk.error).toBeInstanceOf(DurabilityUnconfirmedError);
      // The other master's replica answers: its WAIT is its own.
      await expect(refusing.schedule(healthy, 'elsewhere', { delayMs: 60_000 })).resolves.toMatchObject({ outcome: 'created' });
      await expect(warning.schedule(paused, 'warned', { delayMs: 60_000 })).resolves.toMatchObject({ outcome: 'created' });
      expect(logger.lines.filter((line) => line.level === 'warn' && /0 of 1 replica/.test(line.message))).toHaveLength(1);

      // With a longer wait, a schedule made while the replica is stopped resolves only after it is back and has the write.
      const patient = rig.open({ connection, prefix, durability: { replicas: 1, timeoutMs: 5_000 }, topics, logger: null });
      await patient.get(paused, 'warm-up');
      const resolved = patient.schedule(paused, 'patient', { delayMs: 60_000 }).then(() => performance.now());
      await new Promise((resolve) => setTimeout(resolve, 300));
      resumedAt = performance.now();
      replica.resume();
      expect(await resolved).toBeGreaterThan(resumedAt);
      const onReplica = replica.client();
      await onReplica.readonly();
      expect(await onReplica.zscore(keys.slot(paused, 0).due, 'patient')).not.toBeNull();
    } finally {
      if (resumedAt === Infinity) replica.resume();
    }
  }, 60_000);
});
