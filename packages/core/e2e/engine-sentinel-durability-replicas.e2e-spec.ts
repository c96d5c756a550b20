import { afterEach, describe, expect, it } from '@jest/globals';
import { RedisSentinelGroup } from '@durable-timeout/redis-testing';
import { DurabilityUnconfirmedError } from '../src/store/durability-unconfirmed.error.js';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import { EngineRig, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

// What `durability: { replicas: 1 }` costs after a failover, by the number of replicas: the
// promoted replica confirms writes only once a replica follows it. With one replica that is the
// old primary, restarted by an operator; with two, the other replica, which the sentinels point
// at the promoted one on their own.

const rig = new EngineRig();
let group: RedisSentinelGroup | undefined;

afterEach(async () => {
  await rig.stopAll();
  await group?.stop();
  group = undefined;
});

/** An engine on `group` whose schedules must be confirmed by one replica; records what each attempt came to. */
async function durableEngine(sentinels: RedisSentinelGroup) {
  const timeouts = rig.open({
    connection: sentinels.connectionOptions(),
    prefix: uniquePrefix(),
    logger: null,
    commandTimeoutMs: 500,
    durability: { replicas: 1, timeoutMs: 200 },
    topics: { payment: { slots: 2, leaseMs: 2_000 } },
  });
  const fired = new Set<string>();
  timeouts.handle('payment', (event) => {
    fired.add(event.id);
  });
  await timeouts.start();
  let n = 0;
  /** One schedule: `confirmed`, `unconfirmed` (refused for want of a replica, stored anyway) or `unavailable`. */
  const attempt = async (): Promise<{ id: string; outcome: 'confirmed' | 'unconfirmed' | 'unavailable' }> => {
    const id = `id-${n++}`;
    try {
      await timeouts.schedule('payment', id, { delayMs: 100 });
      return { id, outcome: 'confirmed' };
    } catch (error) {
      if (error instanceof DurabilityUnconfirmedError) return { id, outcome: 'unconfirmed' };
      if (error instanceof RedisUnavailableError) return { id, outcome: 'unavailable' };
      throw error;
    }
  };
  return { fired, attempt };
}

/** Schedules one at a time until one is confirmed; returns the ids refused for want of a replica on the way. */
async function untilConfirmed(engine: Awaited<ReturnType<typeof durableEngine>>, timeoutMs: number): Promise<string[]> {
  const refused: string[] = [];
  await waitUntil(async () => {
    const { id, outcome } = await engine.attempt();
    if (outcome === 'unconfirmed') refused.push(id);
    return outcome === 'confirmed';
  }, timeoutMs, 'a confirmed schedule after the promotion');
  return refused;
}

describe('durability { replicas: 1 } across a Sentinel failover', () => {
  it('with one replica: every schedule is refused after the promotion until the old primary is back as a replica, and each refused one still fires', async () => {
    group = await RedisSentinelGroup.start({ replicas: 1, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 });
    const engine = await durableEngine(group);
    expect((await engine.attempt()).outcome).toBe('confirmed');
    const { server: old } = await group.killPrimary();
    await group.waitForPromotion(old.port);
    // The promoted replica has no replica of its own: no write can be confirmed, however long one waits.
    const refused: string[] = [];
    while (refused.length < 10) {
      const { id, outcome } = await engine.attempt();
      expect(outcome).not.toBe('confirmed');
      if (outcome === 'unconfirmed') refused.push(id);
    }
    await group.rejoin(old);
    refused.push(...(await untilConfirmed(engine, 30_000)));
    await waitUntil(() => refused.every((id) => engine.fired.has(id)), 15_000, 'every refused schedule fired');
  }, 120_000);

  it('with two replicas: schedules are confirmed again after the promotion with no node restarted', async () => {
    group = await RedisSentinelGroup.start({ replicas: 2, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 });
    const engine = await durableEngine(group);
    expect((await engine.attempt()).outcome).toBe('confirmed');
    const { server: old } = await group.killPrimary();
    await group.waitForPromotion(old.port);
    const refused = await untilConfirmed(engine, 30_000);
    expect(old.running).toBe(false);
    await waitUntil(() => refused.every((id) => engine.fired.has(id)), 15_000, 'every refused schedule fired');
  }, 120_000);
});
