import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCluster } from '@durable-timeout/redis-testing';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import type { DurableTimeoutsEvents } from '../src/types.js';
import { EngineRig, recordingLogger, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

let cluster: RedisCluster;
const rig = new EngineRig();

beforeAll(async () => {
  // A low node timeout: the replica is promoted about 1-2 s after its master dies.
  cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
}, 120_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await cluster?.stop();
});

describe('DurableTimeouts during a Redis Cluster master failover', () => {
  it('rejects schedules only with RedisUnavailableError, reports warnings rather than errors, and fires again after the promotion', async () => {
    const prefix = uniquePrefix();
    const logger = recordingLogger();
    const timeouts = rig.open({
      connection: { cluster: cluster.startupNodes },
      prefix,
      logger,
      commandTimeoutMs: 500,
      topics: { payment: { slots: 16, leaseMs: 2_000 } },
    });
    const fired = new Set<string>();
    timeouts.handle('payment', (event) => {
      fired.add(event.id);
    });
    const errors: DurableTimeoutsEvents['error'][] = [];
    timeouts.on('error', (event) => errors.push(event));
    const warnings: DurableTimeoutsEvents['warning'][] = [];
    timeouts.on('warning', (event) => warnings.push(event));
    await timeouts.start();

    const wrong: unknown[] = [];
    const acknowledged = new Set<string>();
    let unavailable = 0;
    let running = true;
    let n = 0;
    const loop = (async () => {
      while (running) {
        const batch = Array.from({ length: 10 }, () => `id-${n++}`);
        await Promise.all(
          batch.map((id) =>
            timeouts.schedule('payment', id, { delayMs: 200 }).then(
              () => acknowledged.add(id),
              (error: unknown) => {
                if (error instanceof RedisUnavailableError) unavailable++;
                else wrong.push(error);
              },
            ),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    await waitUntil(() => fired.size > 20, 10_000, 'firing before the kill');
    // Any master: each serves some of the 16 slots, so schedules and claims meet the failover.
    const victim = (await cluster.masters())[0]!;
    await victim.kill();
    const killedAt = performance.now();
    const failoverMs = await cluster.waitForFailover();
    const scheduledAfter = n;
    await waitUntil(() => [...fired].some((id) => Number(id.slice(3)) >= scheduledAfter), 15_000, 'firing after the promotion');
    const resumedMs = performance.now() - killedAt;
    running = false;
    await loop;

    expect(wrong).toEqual([]);
    expect(errors.map((event) => `${event.operation}: ${event.error.message}`)).toEqual([]);
    // Whether the engine's own calls met the failover depends on timing; those that did are warnings.
    expect(warnings.every((event) => event.error instanceof RedisUnavailableError && event.error.failover)).toBe(true);
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    // eslint-disable-next-line no-console
    console.log(`cluster kill: promoted ${Math.round(failoverMs)} ms, firing resumed ${Math.round(resumedMs)} ms after the kill, unavailable ${unavailable}, acknowledged ${acknowledged.size}, warnings ${warnings.length}`);
  }, 60_000);
});
