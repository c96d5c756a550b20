import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort, LaggingProxy, RedisServer, waitUntil } from '@durable-timeout/redis-testing';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import { describeTimeoutStoreContract } from '../test/timeout-store.contract.js';
import { redisContractContext } from '../test/redis-contract-context.js';
import { DATA_BUCKETS, slotOf } from '../src/store/slot-of.js';
import type { SlotRef } from '../src/store/timeout-store.js';
import type { TimeoutLogger } from '../src/types.js';

const uniquePrefix = () => `t${randomUUID().slice(0, 8)}`;

function recordingLogger(): TimeoutLogger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { warnings, errors, log: () => undefined, error: (message) => errors.push(message), warn: (message) => warnings.push(message) };
}

let server: RedisServer;

beforeAll(async () => {
  server = await RedisServer.start();
});

afterAll(async () => {
  await server?.stop();
});

describeTimeoutStoreContract('Redis, one server', async () => redisContractContext(server.url, uniquePrefix()));

describe('RedisTimeoutStore on one server', () => {
  const slot: SlotRef = { topic: 'payment', slot: 0 };

  it('never closes a connection it was given, but closes its own subscriber', async () => {
    const given = new Redis(server.url);
    const store = new RedisTimeoutStore({ connection: given, prefix: uniquePrefix() });
    await store.writes.schedule(slot, 'x', { delayMs: 60_000, payload: 'null' });
    const unsubscribeLater = await store.subscribe(['payment'], () => undefined, () => undefined);
    expect(typeof unsubscribeLater).toBe('function');
    const clientsBefore = Number(/connected_clients:(\d+)/.exec(await given.info('clients'))![1]);
    await store.close();
    expect(given.status).toBe('ready');
    expect(await given.ping()).toBe('PONG');
    await waitUntil(async () => Number(/connected_clients:(\d+)/.exec(await given.info('clients'))![1]) === clientsBefore - 1);
    await given.quit();
  });

  it('closes the connection it opened', async () => {
    const store = new RedisTimeoutStore({ connection: server.url, prefix: uniquePrefix() });
    await store.ping();
    await store.close();
    await waitUntil(() => store.connection.status === 'end');
    await expect(store.reads.get(slot, 'x')).rejects.toThrow(/closed/);
  });

  it('warns once through the logger when the server has no append-only file', async () => {
    const logger = recordingLogger();
    const store = new RedisTimeoutStore({ connection: server.url, prefix: uniquePrefix(), logger });
    await store.init([{ name: 'payment', slots: 16 }]);
    await store.init([{ name: 'payment', slots: 16 }]);
    await store.close();
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/appendonly/);

    const durable = await RedisServer.start({ appendonly: true, appendfsync: 'everysec' });
    try {
      const quiet = recordingLogger();
      const durableStore = new RedisTimeoutStore({ connection: durable.url, prefix: uniquePrefix(), logger: quiet });
      await durableStore.init([]);
      await durableStore.close();
      expect(quiet.warnings).toEqual([]);
    } finally {
      await durable.stop();
    }
  });

  it('warns when the server may evict keys without a TTL, not for noeviction or volatile policies', async () => {
    const evicting = await RedisServer.start({ appendonly: true, args: ['--maxmemory-policy', 'allkeys-lru'] });
    try {
      const logger = recordingLogger();
      const store = new RedisTimeoutStore({ connection: evicting.url, prefix: uniquePrefix(), logger });
      await store.init([]);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/allkeys-lru.*noeviction/);
      const admin = evicting.client();
      await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
      const quiet = recordingLogger();
      const calm = new RedisTimeoutStore({ connection: evicting.url, prefix: uniquePrefix(), logger: quiet });
      await calm.init([]);
      expect(quiet.warnings).toEqual([]);
      await store.close();
      await calm.close();
    } finally {
      await evicting.stop();
    }
  });

  it('keeps delivering wake-ups after a callback threw, and reports the throw', async () => {
    const logger = recordingLogger();
    const store = new RedisTimeoutStore({ connection: server.url, prefix: uniquePrefix(), logger });
    const wakes: string[] = [];
    try {
      const unsubscribe = await store.subscribe(['payment'], (woken) => {
        wakes.push(`${woken.topic}:${woken.slot}`);
        if (wakes.length === 1) throw new Error('handler bug');
      }, () => undefined);
      await store.writes.schedule({ topic: 'payment', slot: 1 }, 'first', { delayMs: 60_000, payload: 'null' });
      await waitUntil(() => logger.errors.length === 1);
      expect(logger.errors[0]).toMatch(/onWake.*handler bug/);
      await store.writes.schedule({ topic: 'payment', slot: 2 }, 'second', { delayMs: 60_000, payload: 'null' });
      await waitUntil(() => wakes.length === 2);
      expect(wakes).toEqual(['payment:1', 'payment:2']);
      await unsubscribe();
    } finally {
      await store.close();
    }
  });

  it('rejects an invalid prefix', () => {
    expect(() => new RedisTimeoutStore({ connection: server.url, prefix: 'a{b}' })).toThrow(/prefix/);
  });

  it('keeps about 160 bytes per pending timeout in listpack-encoded buckets (figure printed)', async () => {
    const measured = await RedisServer.start();
    // A generous deadline: on a loaded machine a burst of schedules may queue for a while.
    const store = new RedisTimeoutStore({ connection: measured.url, prefix: 'dt', commandTimeoutMs: 60_000 });
    try {
      const client = store.connection;
      const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
      const count = 100_000;
      const before = await usedMemory();
      const payload = '{"amount":424,"c":1}';
      for (let start = 0; start < count; start += 5_000) {
        const calls: Promise<unknown>[] = [];
        for (let i = start; i < start + 5_000; i++) {
          const id = `order-${String(i).padStart(6, '0')}`;
          calls.push(store.writes.schedule({ topic: 'payment', slot: slotOf(id, 16) }, id, { delayMs: 60_000 + (i % 1_000), payload }));
        }
        await Promise.all(calls);
      }
      const bytesPerTimeout = ((await usedMemory()) - before) / count;
      console.log(`Redis memory per pending timeout (12-char id, 20-byte payload, ${count} pending): ${bytesPerTimeout.toFixed(1)} bytes`);
      const keys = store.keys.slot('payment', 0);
      expect(await client.call('OBJECT', 'ENCODING', keys.buckets[0]!)).toBe('listpack');
      expect(await client.zcard(keys.due)).toBeGreaterThan(count / 32);
      expect(bytesPerTimeout).toBeLessThan(200);
      expect(keys.buckets).toHaveLength(DATA_BUCKETS);
    } finally {
      await store.close();
      await measured.stop();
    }
  });
});

describe('RedisTimeoutStore when Redis fails', () => {
  const slot: SlotRef = { topic: 'payment', slot: 1 };
  const commandTimeoutMs = 300;

  it("lets a first call wait for the connection's opening longer than commandTimeoutMs: opening is no command", async () => {
    const server = await RedisServer.start();
    // The ready check's reply is held 1 s (a busy machine, a slow handshake); commands after it are not.
    const proxy = await LaggingProxy.start({ host: '127.0.0.1', port: server.port }, { delayMs: 1_000 });
    const store = new RedisTimeoutStore({ connection: `redis://${proxy.host}:${proxy.port}`, prefix: uniquePrefix(), commandTimeoutMs });
    try {
      const first = store.ping();
      await waitUntil(() => proxy.heldBytes > 0);
      proxy.delayMs = 0;
      await expect(first).resolves.toBeGreaterThan(commandTimeoutMs);
      // Once open, the deadline is the command's again.
      proxy.delayMs = 1_000;
      await expect(store.ping()).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      await store.close(0);
      await proxy.close();
      await server.stop();
    }
  });

  it('fails a first call at once, naming the cause, when the opening attempt fails', async () => {
    const store = new RedisTimeoutStore({ connection: `redis://127.0.0.1:${await freePort()}`, prefix: uniquePrefix(), commandTimeoutMs });
    try {
      const error = await store.writes.schedule(slot, 'x', { delayMs: 1_000, payload: 'null' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect((error as Error).message).toMatch(/could not be reached .*connection failed \(connect ECONNREFUSED/);
      expect(error).toMatchObject({ mayHaveApplied: false });
    } finally {
      await store.close(0);
    }
  });

  it('fails fast with RedisUnavailableError while the server is paused, and works again after', async () => {
    const paused = await RedisServer.start();
    const store = new RedisTimeoutStore({ connection: paused.url, prefix: uniquePrefix(), commandTimeoutMs });
    try {
      await store.writes.schedule(slot, 'before', { delayMs: 60_000, payload: 'null' });
      await store.writes.schedule(slot, 'cancelled-late', { delayMs: 60_000, payload: 'null' });
      await paused.pause();
      const started = Date.now();
      const error = await store.writes.schedule(slot, 'during', { delayMs: 60_000, payload: 'null' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect(error).toMatchObject({ operation: 'schedule', mayHaveApplied: true });
      await expect(store.writes.cancel(slot, 'cancelled-late')).rejects.toBeInstanceOf(RedisUnavailableError);
      await expect(store.reads.get(slot, 'before')).rejects.toBeInstanceOf(RedisUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(RedisUnavailableError);
      // Fail fast: within a small multiple of commandTimeoutMs (the calls above run one after another).
      expect(Date.now() - started).toBeLessThan(commandTimeoutMs * 4 + 2_000);
      await paused.resume();
      expect((await store.reads.get(slot, 'before'))!.state).toBe('pending');
      // A call that timed out after it was sent may still take effect: the cancel ran on resume.
      expect(await store.reads.get(slot, 'cancelled-late')).toBeNull();
      expect((await store.writes.schedule(slot, 'after', { delayMs: 60_000, payload: 'null' })).outcome).toBe('created');
    } finally {
      await paused.resume();
      await store.close();
      await paused.stop();
    }
  });

  it('fails fast while the server is down, and worker calls resume by themselves after a restart', async () => {
    const crashing = await RedisServer.start({ appendonly: true, appendfsync: 'always' });
    const store = new RedisTimeoutStore({ connection: crashing.url, prefix: uniquePrefix(), commandTimeoutMs });
    try {
      const dueAt = (await store.now()) - 1;
      await store.writes.schedule(slot, 'survivor', { at: dueAt, payload: '"kept"' });
      await crashing.kill();
      await waitUntil(() => store.connection.status !== 'ready');
      // Made while the connection is down: it never left the process.
      await expect(store.writes.schedule(slot, 'lost', { delayMs: 1, payload: 'null' })).rejects.toMatchObject({
        name: 'RedisUnavailableError',
        mayHaveApplied: false,
      });
      await expect(store.reads.get(slot, 'survivor')).rejects.toBeInstanceOf(RedisUnavailableError);
      // A worker call made while Redis is down waits for it instead of failing.
      const claim = store.deliveries.claim(slot, 10, 60_000);
      await crashing.restart();
      const { claimed } = await claim;
      expect(claimed.map((entry) => [entry.id, entry.payload, entry.dueAt])).toEqual([['survivor', '"kept"', dueAt]]);
      expect(await store.reads.get(slot, 'lost')).toBeNull();
      expect(await store.deliveries.ack(slot, 'survivor', claimed[0]!.fencingToken)).toBe('acked');
    } finally {
      await store.close();
      await crashing.stop();
    }
  });

  it('re-subscribes after a restart and tells the caller, then delivers wake-ups again', async () => {
    const restarting = await RedisServer.start();
    const store = new RedisTimeoutStore({ connection: restarting.url, prefix: uniquePrefix(), commandTimeoutMs });
    const wakes: number[] = [];
    let resubscribed = 0;
    try {
      const unsubscribe = await store.subscribe(['payment'], (_slot, dueAt) => wakes.push(dueAt), () => resubscribed++);
      await restarting.kill();
      await restarting.restart();
      await waitUntil(() => resubscribed === 1);
      const { dueAt } = await store.writes.schedule(slot, 'wake', { delayMs: 60_000, payload: 'null' });
      await waitUntil(() => wakes.includes(dueAt));
      // A longer outage: the subscriber gives up its connection and opens a new one, still once back.
      await restarting.kill();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await restarting.restart();
      await waitUntil(() => resubscribed === 2);
      const { dueAt: earlier } = await store.writes.schedule(slot, 'wake-2', { delayMs: 30_000, payload: 'null' });
      await waitUntil(() => wakes.includes(earlier));
      expect(resubscribed).toBe(2);
      await unsubscribe();
    } finally {
      await store.close();
      await restarting.stop();
    }
  });
});

jest.setTimeout(30_000);
