import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer, waitForReplicaAcks } from '@durable-timeout/redis-testing';
import { DurabilityUnconfirmedError } from '../src/store/durability-unconfirmed.error.js';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import { InvalidOptionsError } from '../src/errors/invalid-options.error.js';
import { DurableTimeouts } from '../src/durable-timeouts.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { EngineRig, recordingLogger, uniquePrefix } from './fixtures/engine-helpers.js';

let primary: RedisServer;
let replica: RedisServer;
const rig = new EngineRig();

beforeAll(async () => {
  primary = await RedisServer.start();
  replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  await waitForReplicaAcks(primary.client(), 'replication-probe', 1);
}, 60_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await Promise.all([primary?.stop(), replica?.stop()]);
});

async function waitCalls(): Promise<number> {
  const stats = await primary.client().info('commandstats');
  return Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('durability: schedule and cancel confirmed on replicas', () => {
  it('refuses bad durability options with a typed error', () => {
    for (const durability of [{ replicas: 0 }, { replicas: 1, timeoutMs: 0 }, { replicas: 1, onUnavailable: 'drop' }]) {
      expect(() => new DurableTimeouts({ durability: durability as never, topics: { payment: {} }, logger: null })).toThrow(InvalidOptionsError);
    }
  });

  it('resolves once the replica has the write; concurrent calls share one WAIT', async () => {
    const timeouts = rig.open({ connection: primary.url, prefix: uniquePrefix(), durability: { replicas: 1 }, topics: { payment: { slots: 1 } } });
    await timeouts.schedule('payment', 'warm-up', { delayMs: 60_000 });
    const before = await waitCalls();
    const ids = Array.from({ length: 150 }, (_, i) => `order-${i}`);
    await Promise.all(ids.map((id) => timeouts.schedule('payment', id, { delayMs: 60_000 })));
    const waits = (await waitCalls()) - before;
    expect(waits).toBeGreaterThanOrEqual(1);
    expect(waits).toBeLessThanOrEqual(3);
    // Confirmed means on the replica: it holds the last id's data already.
    const onReplica = replica.client();
    const keys = await onReplica.keys('*');
    const values = await Promise.all(keys.filter((key) => key.includes(':d:')).map((key) => onReplica.hkeys(key).catch(() => [])));
    expect(values.flat()).toContain('order-149');
    expect(await timeouts.cancel('payment', 'order-1')).toBe('cancelled');
  });

  it('a primary that refuses writes for want of replicas (min-replicas-to-write) fails calls with RedisUnavailableError, storing nothing', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: primary.url, prefix, commandTimeoutMs: 300, topics: { payment: { slots: 1 } }, logger: null });
    await timeouts.schedule('payment', 'before', { delayMs: 60_000 });
    const admin = primary.client();
    // More good replicas than there are: Redis answers NOREPLICAS to the script's first write.
    await admin.config('SET', 'min-replicas-to-write', '2');
    try {
      const error = await timeouts.schedule('payment', 'refused', { delayMs: 60_000 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect(error).toMatchObject({ operation: 'schedule', failover: true, mayHaveApplied: false });
      await expect(timeouts.cancel('payment', 'before')).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      await admin.config('SET', 'min-replicas-to-write', '0');
    }
    expect(await timeouts.get('payment', 'refused')).toBeNull();
    expect((await timeouts.get('payment', 'before'))?.state).toBe('pending');
  });

  it('a URL that names a replica (a demoted primary) fails calls with RedisUnavailableError and reconnects with a backoff, not once per refused call', async () => {
    const admin = replica.client();
    const connectionsSoFar = async () => Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1]);
    const before = await connectionsSoFar();
    const started = performance.now();
    const timeouts = rig.open({ connection: replica.url, prefix: uniquePrefix(), commandTimeoutMs: 300, topics: { payment: { slots: 1 } }, logger: null });
    for (let call = 0; call < 8; call++) {
      // Refused with READONLY until the deadline, or still waiting for the reconnect it caused: either
      // way the call fails with RedisUnavailableError (failover set only in the first case).
      await expect(timeouts.schedule('payment', `order-${call}`, { delayMs: 60_000 })).rejects.toBeInstanceOf(RedisUnavailableError);
    }
    const elapsedMs = performance.now() - started;
    // Every refused script is sent again every 10-100 ms within commandTimeoutMs: once a reconnect
    // per READONLY, that was a new connection for nearly every attempt. Backed off from 50 ms,
    // doubling, the count grows with the log of the time spent (+1 first connection, +1 spare).
    const allowed = 2 + Math.ceil(Math.log2(elapsedMs / 50 + 1));
    expect((await connectionsSoFar()) - before).toBeLessThanOrEqual(allowed);
  });

  it('claims of several slots sent together to a replica fail each as one claim would: RedisUnavailableError with failover set, not a raw READONLY', async () => {
    const store = new RedisTimeoutStore({ connection: replica.url, prefix: uniquePrefix(), commandTimeoutMs: 200 });
    try {
      expect(store.deliveries.coalescesSlotCalls).toBe(true);
      const now = await store.now();
      // A rate limit makes even a claim with nothing due write (its token bucket), as a real claim of due ids does.
      const claims = [0, 1, 2].map((slot) =>
        store.deliveries.claim({ topic: 'payment', slot }, 10, 1_000, undefined, undefined, { perMs: 1, burst: 10 }).then(
          () => 'claimed',
          (error: unknown) => error,
        ),
      );
      const outcomes = await Promise.all(claims);
      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(RedisUnavailableError);
        expect((outcome as RedisUnavailableError).failover).toBe(true);
      }
      expect(now).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('refuses with DurabilityUnconfirmedError when no replica confirms (the write stays on the primary), or warns under warn', async () => {
    const logger = recordingLogger();
    const prefix = uniquePrefix();
    const refusing = rig.open({ connection: primary.url, prefix, durability: { replicas: 1, timeoutMs: 200 }, topics: { payment: { slots: 1 } }, logger: null });
    const warning = rig.open({ connection: primary.url, prefix, durability: { replicas: 1, timeoutMs: 200, onUnavailable: 'warn' }, topics: { payment: { slots: 1 } }, logger });
    await refusing.schedule('payment', 'before', { delayMs: 60_000 });
    await replica.kill();
    try {
      const error = await refusing.schedule('payment', 'unconfirmed', { delayMs: 60_000 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DurabilityUnconfirmedError);
      expect(error).toMatchObject({ operation: 'schedule', required: 1, confirmed: 0 });
      expect((await refusing.get('payment', 'unconfirmed'))?.state).toBe('pending');
      await expect(refusing.cancel('payment', 'before')).rejects.toBeInstanceOf(DurabilityUnconfirmedError);
      await expect(warning.schedule('payment', 'warned', { delayMs: 60_000 })).resolves.toMatchObject({ outcome: 'created' });
      expect(logger.lines.filter((line) => line.level === 'warn' && /0 of 1 replica/.test(line.message))).toHaveLength(1);
    } finally {
      await replica.restart();
    }
  }, 30_000);
});
