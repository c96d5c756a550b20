import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { EngineRig, nextEvent, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';
import { buildCore, WorkerProcess } from './fixtures/worker-process.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import type { ClaimResult, LeaseExpiryPolicy, SlotRef } from '../src/store/timeout-store.js';

/** A Redis store that counts the claims that came back. */
class ClaimCountingStore extends RedisTimeoutStore {
  claims = 0;

  constructor(...options: ConstructorParameters<typeof RedisTimeoutStore>) {
    super(...options);
    const claim = this.deliveries.claim.bind(this.deliveries);
    this.deliveries.claim = async (slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy): Promise<ClaimResult> => {
      const result = await claim(slot, limit, leaseMs, expiry);
      this.claims++;
      return result;
    };
  }
}

let server: RedisServer;
const rig = new EngineRig();
const workers: WorkerProcess[] = [];
/** Stores given to engines (an engine never closes a store it was given). */
const stores: RedisTimeoutStore[] = [];

beforeAll(async () => {
  buildCore();
  server = await RedisServer.start();
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.kill()));
  await rig.stopAll();
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

afterAll(async () => {
  await server?.stop();
});

describe('DurableTimeouts across processes', () => {
  it('a timeout scheduled in this process fires exactly once in one of two worker processes', async () => {
    const prefix = uniquePrefix();
    workers.push(await WorkerProcess.start({ REDIS_URL: server.url, PREFIX: prefix }));
    workers.push(await WorkerProcess.start({ REDIS_URL: server.url, PREFIX: prefix }));
    const scheduler = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 4 } } });
    const ids = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    await Promise.all(ids.map((id, i) => scheduler.schedule('payment', id, { delayMs: 50 + (i % 10) * 20 })));
    const fired = () => workers.flatMap((worker) => worker.of('fired'));
    await waitUntil(() => fired().length >= ids.length, 10_000, 'every timeout fired');
    await waitUntil(async () => {
      const stats = await scheduler.stats('payment');
      return stats.pending === 0 && stats.firing === 0;
    });
    const started = workers.flatMap((worker) => worker.of('started'));
    expect(started.map((message) => message.id).sort()).toEqual([...ids].sort());
    expect(started.every((message) => message.attempt === 1)).toBe(true);
    expect(fired().map((message) => message.id).sort()).toEqual([...ids].sort());
  });

  it('a worker killed with SIGKILL mid-handler: another instance fires the timeout again when the lease ends, not at its sweep', async () => {
    const prefix = uniquePrefix();
    const leaseMs = 3_000;
    const doomed = await WorkerProcess.start({ REDIS_URL: server.url, PREFIX: prefix, LEASE_MS: String(leaseMs), MODE: 'hang' });
    workers.push(doomed);
    const scheduler = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 4, leaseMs } } });
    await scheduler.schedule('payment', 'order-1', { delayMs: 0, payload: { amount: 7 } });
    await waitUntil(() => doomed.of('started').length === 1, 5_000, 'handler started in the doomed worker');
    const held = await scheduler.get('payment', 'order-1');
    expect(held).toMatchObject({ state: 'firing', attempt: 1 });

    // The survivor's sweep (60 s) is far beyond the test: only the lease expiry its first claims
    // reported can wake it. Those claims must have seen the lease still running.
    const store = new ClaimCountingStore({ connection: server.url, prefix });
    stores.push(store);
    const survivor = rig.open({ store, topics: { payment: { slots: 4, leaseMs } }, sweepIntervalMs: 60_000 });
    const events: { attempt: number; fencingToken: number; startedAt: number; payload: unknown }[] = [];
    survivor.handle('payment', (event) => {
      events.push({ attempt: event.attempt, fencingToken: event.fencingToken, startedAt: Date.now(), payload: event.payload });
    });
    const acked = nextEvent(survivor, 'fired', (event) => event.id === 'order-1', 15_000);
    await survivor.start();
    await waitUntil(() => store.claims >= 4, 5_000, 'first claim of every slot');
    expect(Date.now()).toBeLessThan(held!.leaseExpiresAt!);
    await doomed.kill();

    await acked;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 2, payload: { amount: 7 } });
    expect(events[0]!.fencingToken).toBeGreaterThan(doomed.of('started')[0]!.fencingToken);
    // The local Redis shares this machine's clock: the re-fire cannot precede the lease end, and it
    // follows it closely (the sweep would have waited at least 51 s).
    expect(events[0]!.startedAt).toBeGreaterThanOrEqual(held!.leaseExpiresAt! - 5);
    expect(events[0]!.startedAt - held!.leaseExpiresAt!).toBeLessThan(10_000);
    expect(await scheduler.get('payment', 'order-1')).toBeNull();
  });
});
