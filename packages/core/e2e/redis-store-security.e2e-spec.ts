import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { makeTestCertificates, RedisCluster, RedisServer, waitUntil } from '@durable-timeout/redis-testing';
import { migrateSlots } from '../src/engine/slot-migration.js';
import { aclRulesFor } from '../src/store/redis-acl.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import { slotOf } from '../src/store/slot-of.js';
import { TimeoutKeys } from '../src/store/timeout-keys.js';
import type { SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import type { TimeoutLogger } from '../src/types.js';

const uniquePrefix = () => `t${randomUUID().slice(0, 8)}`;

function recordingLogger(): TimeoutLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log: () => undefined, error: () => undefined, warn: (message) => warnings.push(message) };
}

/**
 * Runs the store's whole life through `store`: schedule, wake-up to a peer, claim, fail to dead,
 * replay, cancel (pending, and firing with its notice to the peer), ack, stats, ping.
 */
async function exerciseStore(store: TimeoutStore, peer: TimeoutStore, slot: SlotRef): Promise<void> {
  await store.init([{ name: slot.topic, slots: 16 }]);
  const wakes: number[] = [];
  const notices: string[] = [];
  const onCancel = (_topic: string, id: string, fencingToken: number) => notices.push(`${id} ${fencingToken}`);
  const unsubscribe = await peer.subscribe([slot.topic], (_slot, dueAt) => wakes.push(dueAt), () => undefined, undefined, onCancel);
  try {
    const { dueAt } = await store.writes.schedule(slot, 'secure', { at: (await store.now()) - 1, payload: '{"a":1}' });
    await waitUntil(() => wakes.includes(dueAt));
    await store.writes.schedule(slot, 'to-cancel', { delayMs: 60_000, payload: 'null' });
    expect(await store.writes.cancel(slot, 'to-cancel')).toBe('cancelled');
    const [claimed] = (await store.deliveries.claim(slot, 10, 60_000)).claimed;
    expect(claimed).toMatchObject({ id: 'secure', payload: '{"a":1}' });
    expect((await store.deliveries.fail(slot, 'secure', claimed!.fencingToken, { error: 'e', retryDelayMs: 0, maxAttempts: 1 })).outcome).toBe('dead');
    expect(await store.reads.listDead(slot, 0, 10)).toHaveLength(1);
    expect(await store.reads.replayDead(slot)).toBe(1);
    const [again] = (await store.deliveries.claim(slot, 10, 60_000)).claimed;
    expect(await store.reads.get(slot, 'secure')).toMatchObject({ state: 'firing', attempt: 1 });
    expect(await store.deliveries.ackMany(slot, [{ id: 'secure', fencingToken: again!.fencingToken }])).toEqual(['acked']);
    await store.writes.schedule(slot, 'running', { at: (await store.now()) - 1, payload: 'null' });
    const [running] = (await store.deliveries.claim(slot, 10, 60_000)).claimed;
    expect(await store.writes.cancel(slot, 'running')).toBe('firing');
    await waitUntil(() => notices.includes(`running ${running!.fencingToken}`));
    expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 0, dead: 0 });
    expect(await store.ping()).toBeGreaterThanOrEqual(0);
    // The registry of slot counts and a slot migration, with the same rules.
    const { slots } = await store.layout.claimLayout(slot.topic, 16);
    await store.writes.schedule({ topic: slot.topic, slot: slotOf('moved', slots), slots }, 'moved', { delayMs: 60_000, payload: '1' });
    expect(await migrateSlots(store, slot.topic, slots * 2)).toMatchObject({ from: slots, to: slots * 2 });
    expect(await store.reads.get({ topic: slot.topic, slot: slotOf('moved', slots * 2), slots: slots * 2 }, 'moved')).toMatchObject({ state: 'pending' });
  } finally {
    await unsubscribe();
  }
}

/** Redis error text of a rejected call ('' when it succeeded). */
async function errorOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('RedisTimeoutStore with a least-privilege ACL user', () => {
  let server: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await RedisServer.start({ password: 'admin-secret' });
    admin = server.client();
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function createUser(name: string, password: string, prefix: string): Promise<void> {
    await admin.call('ACL', 'SETUSER', name, 'reset', 'on', `>${password}`, ...aclRulesFor(prefix).split(' '));
  }

  it('runs every store operation through a user holding only those rules, AUTH by username', async () => {
    const prefix = uniquePrefix();
    await createUser('timeouts', 'timeouts-secret', prefix);
    await admin.call('ACL', 'LOG', 'RESET');
    const url = `redis://timeouts:timeouts-secret@127.0.0.1:${server.port}`;
    const logger = recordingLogger();
    const store = new RedisTimeoutStore({ connection: url, prefix, logger });
    const peer = new RedisTimeoutStore({ connection: { host: '127.0.0.1', port: server.port, username: 'timeouts', password: 'timeouts-secret' }, prefix });
    try {
      await exerciseStore(store, peer, { topic: 'payment', slot: 2 });
      // INFO is granted, so the store can still advise on persistence (this server has no AOF).
      expect(logger.warnings.filter((warning) => /appendonly/.test(warning))).toHaveLength(1);
      // Nothing the store needs was denied. (ioredis' best-effort CLIENT SETINFO, Redis >= 7.2, may be.)
      const denied = ((await admin.call('ACL', 'LOG')) as unknown[][]).map((entry) => String(entry[entry.indexOf('object') + 1]));
      expect(denied.filter((object) => !object.startsWith('client'))).toEqual([]);
    } finally {
      await store.close();
      await peer.close();
    }
  });

  it('denies FLUSHALL, KEYS, CONFIG and every key and channel of another prefix', async () => {
    const prefix = uniquePrefix();
    const other = uniquePrefix();
    await createUser('confined', 'confined-secret', prefix);
    const owner = new RedisTimeoutStore({ connection: server.url, prefix: other });
    const confinedUrl = `redis://confined:confined-secret@127.0.0.1:${server.port}`;
    const user = server.client({ username: 'confined', password: 'confined-secret' });
    const intruder = new RedisTimeoutStore({ connection: confinedUrl, prefix: other, commandTimeoutMs: 2_000 });
    try {
      const slot = { topic: 'payment', slot: slotOf('victim', 16) };
      await owner.writes.schedule(slot, 'victim', { delayMs: 60_000, payload: '"secret"' });
      const otherKeys = owner.keys.slot('payment', slot.slot);
      const ownKey = new TimeoutKeys(prefix);
      expect(await errorOf(user.flushall())).toMatch(/NOPERM/);
      expect(await errorOf(user.keys('*'))).toMatch(/NOPERM/);
      expect(await errorOf(user.call('CONFIG', 'GET', '*'))).toMatch(/NOPERM/);
      expect(await errorOf(user.call('CONFIG', 'SET', 'appendonly', 'no'))).toMatch(/NOPERM/);
      expect(await errorOf(user.call('SCRIPT', 'FLUSH'))).toMatch(/NOPERM/);
      expect(await errorOf(user.call('DEL', ownKey.slot('payment', 0).due))).toMatch(/NOPERM/);
      // Another prefix: unreachable directly, through declared script keys, and from inside a script.
      expect(await errorOf(user.zcard(otherKeys.due))).toMatch(/NOPERM/);
      expect(await errorOf(user.eval("return redis.call('ZCARD', KEYS[1])", 1, otherKeys.due))).toMatch(/NOPERM/);
      expect(await errorOf(user.eval(`return redis.call('ZCARD', '${otherKeys.due}')`, 0))).toMatch(/NOPERM|can't access/);
      expect(await errorOf(user.publish(owner.keys.wakeChannel('payment'), '0:0'))).toMatch(/NOPERM/);
      expect(await errorOf(user.eval('return 1', 0))).toBe('');
      // The store of another prefix, opened with this user, can neither read nor cancel nor subscribe.
      expect(await errorOf(intruder.reads.get(slot, 'victim'))).toMatch(/NOPERM/);
      expect(await errorOf(intruder.writes.cancel(slot, 'victim'))).toMatch(/NOPERM/);
      expect(await errorOf(intruder.subscribe(['payment'], () => undefined, () => undefined))).toMatch(/NOPERM/);
      expect((await owner.reads.get(slot, 'victim'))!.payload).toBe('"secret"');
    } finally {
      await owner.close();
      await intruder.close();
    }
  });

  it('works with the password of the default user (requirepass), in the URL or in options', async () => {
    const slot = { topic: 'payment', slot: 9 };
    const prefix = uniquePrefix();
    const byUrl = new RedisTimeoutStore({ connection: server.url, prefix });
    const byOptions = new RedisTimeoutStore({ connection: { host: '127.0.0.1', port: server.port, password: 'admin-secret' }, prefix });
    const wrong = new RedisTimeoutStore({ connection: `redis://:wrong@127.0.0.1:${server.port}`, prefix, commandTimeoutMs: 300 });
    try {
      expect(server.url).toContain(':admin-secret@');
      await exerciseStore(byUrl, byOptions, slot);
      const error = await wrong.ping().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect((error as Error).message).toMatch(/WRONGPASS|invalid username-password/i);
    } finally {
      await byUrl.close();
      await byOptions.close();
      await wrong.close();
    }
  });
});

describe('RedisTimeoutStore on a Redis Cluster with a least-privilege ACL user', () => {
  it('works with the cluster rules set on every node', async () => {
    const cluster = await RedisCluster.start({ masters: 3 });
    const prefix = uniquePrefix();
    try {
      for (const node of cluster.nodes) {
        const admin = node.client();
        await admin.call('ACL', 'SETUSER', 'timeouts', 'reset', 'on', '>cluster-secret', ...aclRulesFor(prefix, { cluster: true }).split(' '));
      }
      const connection = { cluster: cluster.startupNodes, options: { redisOptions: { username: 'timeouts', password: 'cluster-secret' } } };
      const store = new RedisTimeoutStore({ connection, prefix });
      const peer = new RedisTimeoutStore({ connection, prefix });
      try {
        for (const slot of [0, 5, 11]) await exerciseStore(store, peer, { topic: 'payment', slot });
      } finally {
        await store.close();
        await peer.close();
      }
    } finally {
      await cluster.stop();
    }
  }, 60_000);
});

describe('RedisTimeoutStore over TLS', () => {
  let dir: string;
  let server: RedisServer;
  let ca: Buffer;
  let wrongCa: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dt-tls-'));
    const files = await makeTestCertificates(dir);
    server = await RedisServer.start({ tls: { certFile: files.certFile, keyFile: files.keyFile, caFile: files.caFile }, password: 'tls-secret' });
    ca = readFileSync(files.caFile);
    wrongCa = readFileSync(files.wrongCaFile);
    const admin = server.client();
    await admin.call('ACL', 'SETUSER', 'tls-user', 'reset', 'on', '>tls-user-secret', ...aclRulesFor('tls').split(' '));
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('listens with TLS only', async () => {
    expect(server.url).toMatch(/^rediss:\/\//);
    const plain = new Redis({ host: '127.0.0.1', port: server.port, password: 'tls-secret', retryStrategy: () => null, maxRetriesPerRequest: 0 });
    plain.on('error', () => undefined);
    try {
      expect(await errorOf(plain.ping())).not.toBe('');
    } finally {
      plain.disconnect();
    }
  });

  it('works with ioredis tls options and the right CA, AUTH by password and by ACL username', async () => {
    const byPassword = new RedisTimeoutStore({
      connection: { host: '127.0.0.1', port: server.port, password: 'tls-secret', tls: { ca, servername: 'localhost' } },
      prefix: 'tls',
    });
    const byUsername = new RedisTimeoutStore({
      connection: { host: '127.0.0.1', port: server.port, username: 'tls-user', password: 'tls-user-secret', tls: { ca } },
      prefix: 'tls',
    });
    try {
      await exerciseStore(byPassword, byUsername, { topic: 'payment', slot: 1 });
      await exerciseStore(byUsername, byPassword, { topic: 'ride', slot: 0 });
    } finally {
      await byPassword.close();
      await byUsername.close();
    }
  });

  it('works with a rediss:// URL on a connection it is given', async () => {
    const given = new Redis(`rediss://tls-user:tls-user-secret@127.0.0.1:${server.port}`, { tls: { ca } });
    const store = new RedisTimeoutStore({ connection: given, prefix: 'tls' });
    try {
      await exerciseStore(store, store, { topic: 'payment', slot: 4 });
    } finally {
      await store.close();
      await given.quit();
    }
  });

  it('fails with a wrong CA, and with a rediss:// URL the system does not trust, saying why', async () => {
    const wrong = new RedisTimeoutStore({
      connection: { host: '127.0.0.1', port: server.port, password: 'tls-secret', tls: { ca: wrongCa } },
      prefix: 'tls',
      commandTimeoutMs: 500,
    });
    const untrusted = new RedisTimeoutStore({ connection: server.url, prefix: 'tls', commandTimeoutMs: 500 });
    try {
      for (const store of [wrong, untrusted]) {
        const error = await store.init([]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RedisUnavailableError);
        expect((error as Error).message).toMatch(/certificate/i);
        await expect(store.writes.schedule({ topic: 'payment', slot: 0 }, 'x', { delayMs: 1_000, payload: 'null' })).rejects.toBeInstanceOf(
          RedisUnavailableError,
        );
      }
    } finally {
      await wrong.close();
      await untrusted.close();
    }
  });
});
