import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisSentinelGroup, type RedisServer } from '@durable-timeout/redis-testing';
import { DurableTimeouts } from '../src/durable-timeouts.js';
import { InvalidStoreOptionError } from '../src/store/invalid-store-option.error.js';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import type { DurableTimeoutsEvents, DurableTimeoutsOptions } from '../src/types.js';
import { DurabilityUnconfirmedError } from '../src/store/durability-unconfirmed.error.js';
import { EngineRig, recordingLogger, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

let group: RedisSentinelGroup;
const rig = new EngineRig();

beforeAll(async () => {
  // Two replicas: one failover by a kill, then one by SENTINEL FAILOVER (the old primary stays up, demoted).
  group = await RedisSentinelGroup.start({ replicas: 2, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 });
}, 120_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await group?.stop();
});

/** Waits until every replica has applied everything the primary has (replication in sync). */
async function inSync(primary: RedisServer): Promise<void> {
  const client = primary.client();
  await waitUntil(async () => {
    const info = await client.info('replication');
    const offset = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
    const replicas = [...info.matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((match) => Number(match[1]));
    return replicas.length > 0 && replicas.every((replicaOffset) => replicaOffset >= offset);
  }, 5_000, 'replicas in sync');
  client.disconnect();
}

/** An engine on the Sentinel group with a schedule loop; counts what callers saw. */
async function underLoad(durability?: DurableTimeoutsOptions['durability']) {
  const logger = recordingLogger();
  const timeouts = rig.open({
    ...(durability ? { durability } : {}),
    connection: group.connectionOptions(),
    prefix: uniquePrefix(),
    logger,
    commandTimeoutMs: 500,
    topics: { payment: { slots: 4, leaseMs: 2_000 } },
  });
  const fired = new Set<string>();
  timeouts.handle('payment', (event) => {
    fired.add(event.id);
  });
  const errors: DurableTimeoutsEvents['error'][] = [];
  timeouts.on('error', (event) => errors.push(event));
  await timeouts.start();
  const state = { running: true, paused: false, n: 0, unavailable: 0, unconfirmed: 0, wrong: [] as unknown[], acknowledged: new Set<string>() };
  const loop = (async () => {
    while (state.running) {
      if (!state.paused) {
        const batch = Array.from({ length: 10 }, () => `id-${state.n++}`);
        await Promise.all(
          batch.map((id) =>
            timeouts.schedule('payment', id, { delayMs: 200 }).then(
              () => state.acknowledged.add(id),
              (error: unknown) => {
                if (error instanceof RedisUnavailableError) state.unavailable++;
                else if (error instanceof DurabilityUnconfirmedError) state.unconfirmed++;
                else state.wrong.push(error);
              },
            ),
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const stop = async () => {
    state.running = false;
    await loop;
  };
  return { timeouts, logger, fired, errors, state, stop };
}

describe('DurableTimeouts on Redis Sentinel', () => {
  it('refuses bad Sentinel options with a typed error', () => {
    expect(() => new DurableTimeouts({ connection: { sentinels: [], name: 'mymaster' }, topics: { payment: {} }, logger: null })).toThrow(
      InvalidStoreOptionError,
    );
  });

  it('follows the promotion after the primary is killed: nothing acknowledged is lost, only RedisUnavailableError, firing resumes', async () => {
    const load = await underLoad();
    await waitUntil(() => load.fired.size > 20, 10_000, 'firing before the kill');
    const primary = await group.primary();
    // Replication in sync at the moment of the kill: what was acknowledged is on the replicas.
    load.state.paused = true;
    await inSync(primary);
    await primary.kill();
    load.state.paused = false;
    const killedAt = performance.now();
    await group.waitForPromotion(primary.port);
    const promotedMs = performance.now() - killedAt;
    const scheduledAfter = load.state.n;
    const firedBefore = load.fired.size;
    await waitUntil(() => [...load.fired].some((id) => Number(id.slice(3)) >= scheduledAfter), 15_000, 'firing after the promotion').catch((error: Error) => {
      throw new Error(
        `${error.message}: scheduled ${load.state.n} (${scheduledAfter} at the promotion), acknowledged ${load.state.acknowledged.size}, ` +
          `fired ${load.fired.size} (${firedBefore} at the promotion), unavailable ${load.state.unavailable}, wrong ${load.state.wrong.length}, ` +
          `warnings ${load.logger.lines.filter((line) => line.level === 'warn').map((line) => line.message).join(' | ')}`,
      );
    });
    const resumedMs = performance.now() - killedAt;
    await load.stop();
    await waitUntil(() => [...load.state.acknowledged].every((id) => load.fired.has(id)), 15_000, 'every acknowledged schedule fired');
    expect(load.state.wrong).toEqual([]);
    expect(load.errors.map((event) => `${event.operation}: ${event.error.message}`)).toEqual([]);
    expect(load.logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    // eslint-disable-next-line no-console
    console.log(`sentinel kill: promoted ${Math.round(promotedMs)} ms, firing resumed ${Math.round(resumedMs)} ms after the kill, unavailable ${load.state.unavailable}, acknowledged ${load.state.acknowledged.size}`);
  }, 60_000);

  it.each([
    ['without the durability option: writes taken by the old primary before its demotion are lost (reported)', undefined],
    ['with durability { replicas: 1 }: nothing acknowledged is lost', { replicas: 1, timeoutMs: 300 }],
  ] as const)('follows a SENTINEL FAILOVER (the old primary demoted, answering READONLY) %s', async (_case, durability) => {
    const load = await underLoad(durability);
    await waitUntil(() => load.fired.size > 20, 10_000, 'firing before the failover');
    const primary = await group.primary();
    load.state.paused = true;
    await inSync(primary);
    const sentinel = group.sentinelProcesses[0]!;
    const admin = new (await import('ioredis')).Redis({ host: sentinel.host, port: sentinel.port });
    await admin.call('SENTINEL', 'FAILOVER', group.name);
    admin.disconnect();
    load.state.paused = false;
    await group.waitForPromotion(primary.port);
    const scheduledAfter = load.state.n;
    await waitUntil(() => [...load.fired].some((id) => Number(id.slice(3)) >= scheduledAfter), 15_000, 'firing after the promotion');
    // Scheduled once the old primary is a replica: they reach the new primary and fire.
    await waitUntil(async () => /role:slave/.test(await primary.client().info('replication')), 10_000, 'old primary demoted');
    const afterDemotion = load.state.n;
    const lateOnes = () => [...load.state.acknowledged].filter((id) => Number(id.slice(3)) >= afterDemotion);
    await waitUntil(() => lateOnes().length >= 50, 10_000, 'schedules acknowledged after the demotion');
    await load.stop();
    const late = lateOnes();
    await waitUntil(() => late.every((id) => load.fired.has(id)), 15_000, 'every schedule acknowledged after the demotion fired');
    // Acknowledged by the old primary between the promotion and its demotion: lost (a split brain
    // Sentinel allows; docs/RELIABILITY.md). Reported, not asserted: the durability option is what closes it.
    const lost = [...load.state.acknowledged].filter((id) => !load.fired.has(id));
    // eslint-disable-next-line no-console
    console.log(
      `sentinel FAILOVER ${durability ? 'with' : 'without'} durability: acknowledged ${load.state.acknowledged.size}, lost ${lost.length}, ` +
        `unavailable ${load.state.unavailable}, unconfirmed ${load.state.unconfirmed}`,
    );
    if (durability) expect(lost).toEqual([]);
    expect(primary.running).toBe(true);
    expect(load.state.wrong).toEqual([]);
    expect(load.errors.map((event) => `${event.operation}: ${event.error.message}`)).toEqual([]);
  }, 60_000);
});
