import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { Redis } from 'ioredis';
import { EffectsReader, EffectsRecorder } from '../src/harness/effects-store.js';
import { ReplyDroppingProxy } from '../src/harness/reply-dropping-proxy.js';
import { respArrayLength } from '../src/harness/resp.js';
import { tally } from '../src/harness/tally.js';

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await RedisServer.start();
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

const uniquePrefix = () => `fx-test-${randomBytes(4).toString('hex')}`;

describe('effects records on a real Redis', () => {
  it('fences off a stale run, absorbs a repeat, and counts a rerun after an accepted ack as a duplicate effect', async () => {
    const prefix = uniquePrefix();
    const recorder = new EffectsRecorder(server.url, prefix);
    const reader = new EffectsReader(admin, prefix);
    try {
      await recorder.begin('a', 5, 1, true, false);
      await recorder.begin('a', 7, 2, true, false);
      expect(await recorder.effect('a', 5)).toBe(0);
      expect(await recorder.effect('a', 7)).toBe(1);
      expect(await recorder.effect('a', 7)).toBe(2);
      await recorder.acked('a', 7);
      await recorder.begin('a', 9, 3, true, false);
      expect(await recorder.effect('a', 9)).toBe(2);
      await recorder.begin('b', 4, 2, true, false);
      await recorder.begin('b', 4, 2, true, false);

      const figures = tally(new Map([['a', 0], ['b', 0], ['c', 0]]), await reader.snapshot());
      expect(figures).toMatchObject({
        scheduled: 3,
        lost: 2,
        staleWritesRefused: 1,
        absorbedRepeats: 2,
        duplicateEffects: 1,
        duplicateDeliveries: 3,
        tokenRegressions: 1,
        recoveredOrphans: 1,
      });
      expect(await reader.appliedCount()).toBe(1);
    } finally {
      await reader.clear();
      await recorder.close();
    }
    expect(await admin.keys(`${prefix}:*`)).toEqual([]);
  });

  it('counts a rerun after an accepted ack even when the rerun is acknowledged too (an ack lost in a failover)', async () => {
    const prefix = uniquePrefix();
    const recorder = new EffectsRecorder(server.url, prefix);
    const reader = new EffectsReader(admin, prefix);
    try {
      await recorder.begin('a', 5, 1, true, false);
      expect(await recorder.effect('a', 5)).toBe(1);
      await recorder.acked('a', 5);
      // The accepted ack never reached the promoted replica: the timeout runs again and is acked again.
      await recorder.begin('a', 9, 2, true, false);
      expect(await recorder.effect('a', 9)).toBe(2);
      await recorder.acked('a', 9);
      // A claim lost before its ack: run again, acked once; not a rerun after an accepted ack.
      await recorder.begin('b', 3, 1, true, false);
      expect(await recorder.effect('b', 3)).toBe(1);
      await recorder.begin('b', 6, 1, true, false);
      expect(await recorder.effect('b', 6)).toBe(2);
      await recorder.acked('b', 6);
      const figures = tally(new Map([['a', 0], ['b', 0]]), await reader.snapshot());
      expect(figures).toMatchObject({ rerunAfterAck: 1, appliedTwice: 0, duplicateEffects: 1, duplicateDeliveries: 2 });
    } finally {
      await reader.clear();
      await recorder.close();
    }
  });

  it('logs the runs and failures of a traced id and reads the heal flag', async () => {
    const prefix = uniquePrefix();
    const recorder = new EffectsRecorder(server.url, prefix);
    const reader = new EffectsReader(admin, prefix);
    try {
      await recorder.begin('p', 1, 1, false, true);
      await recorder.failed('p');
      await recorder.begin('p', 2, 2, true, true);
      expect((await reader.runLog('p')).map((entry) => entry.kind)).toEqual(['start', 'fail', 'start']);
      expect(await reader.failureCount()).toBe(1);
      expect(await recorder.healed()).toBe(false);
      await reader.heal();
      expect(await recorder.healed()).toBe(true);
    } finally {
      await reader.clear();
      await recorder.close();
    }
  });
});

describe('ReplyDroppingProxy in front of a real Redis', () => {
  it('lets the script run, drops its array reply, and leaves other replies alone', async () => {
    const proxy = await ReplyDroppingProxy.start({ host: server.host, port: server.port });
    const key = `${uniquePrefix()}:counter`;
    const client = server.client({ port: proxy.port, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false, retryStrategy: () => 50 });
    try {
      await client.ping();
      const script = "redis.call('INCR', KEYS[1]); return {1, 2, 3, 4}";
      proxy.dropNextReplies(1, (args) => args[0]?.toLowerCase() === 'eval', (reply) => respArrayLength(reply) > 3);
      await expect(client.eval(script, 1, key)).rejects.toThrow();
      expect(proxy.dropped).toBe(1);
      expect(await admin.get(key)).toBe('1');
      expect(await client.eval(script, 1, key)).toEqual([1, 2, 3, 4]);
      expect(await admin.get(key)).toBe('2');
    } finally {
      client.disconnect();
      await proxy.close();
      await admin.del(key);
    }
  });
});
