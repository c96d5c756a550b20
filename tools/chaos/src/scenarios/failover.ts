import { randomUUID } from 'node:crypto';
import {
  DurabilityUnconfirmedError,
  DurableTimeouts,
  RedisUnavailableError,
  type ConnectionOptions,
  type DurabilityOptions,
} from '@durable-timeout/core';
import { RedisCluster, RedisSentinelGroup, type RedisServer } from '@durable-timeout/redis-testing';
import { pollUntil, type RunContext, type Scenario, type ScenarioResult } from '../harness/rig.js';

/** What the schedule loop and the handler saw during a failover run. */
interface Tally {
  acknowledged: Set<string>;
  fired: Map<string, number>;
  unavailable: number;
  unconfirmed: number;
  wrong: string[];
  errorEvents: number;
  warningEvents: number;
  n: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs an engine on `connection` with a schedule loop (batches of 10 every 20 ms, due 300 ms
 * later), calls `failover` `rounds` times (it kills a primary and resolves once a replica was
 * promoted), then counts: acknowledged schedules that never fired (lost), ids fired twice,
 * rejections other than `RedisUnavailableError` / `DurabilityUnconfirmedError`, and the time from
 * each promotion until a timeout scheduled after it fired.
 */
async function failoverRun(
  name: string,
  context: RunContext,
  connection: ConnectionOptions,
  rounds: number,
  failover: (round: number) => Promise<void>,
  durability?: DurabilityOptions,
): Promise<ScenarioResult> {
  const tally: Tally = { acknowledged: new Set(), fired: new Map(), unavailable: 0, unconfirmed: 0, wrong: [], errorEvents: 0, warningEvents: 0, n: 0 };
  const timeouts = new DurableTimeouts({
    connection,
    prefix: `f${randomUUID().slice(0, 8)}`,
    commandTimeoutMs: 500,
    logger: null,
    topics: { payment: { slots: 16, leaseMs: 2_000 } },
    ...(durability ? { durability } : {}),
  });
  timeouts.handle('payment', (event) => {
    tally.fired.set(event.id, (tally.fired.get(event.id) ?? 0) + 1);
  });
  timeouts.on('error', () => tally.errorEvents++);
  timeouts.on('warning', () => tally.warningEvents++);
  const failures: string[] = [];
  const resumed: number[] = [];
  let running = true;
  await timeouts.start();
  const loop = (async () => {
    while (running) {
      const batch = Array.from({ length: 10 }, () => `id-${tally.n++}`);
      await Promise.all(
        batch.map((id) =>
          timeouts.schedule('payment', id, { delayMs: 300 }).then(
            () => tally.acknowledged.add(id),
            (error: unknown) => {
              if (error instanceof RedisUnavailableError) tally.unavailable++;
              else if (error instanceof DurabilityUnconfirmedError) tally.unconfirmed++;
              else tally.wrong.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
            },
          ),
        ),
      );
      await sleep(20);
    }
  })();
  try {
    if (!(await pollUntil(() => tally.fired.size > 50, 15_000, 20))) failures.push('nothing fired before the first failover');
    for (let round = 0; round < rounds; round++) {
      context.say(`${name}: failover ${round + 1} of ${rounds}`);
      await failover(round);
      const promotedAt = performance.now();
      const after = tally.n;
      if (await pollUntil(() => [...tally.fired.keys()].some((id) => Number(id.slice(3)) >= after), 30_000, 20)) {
        resumed.push(performance.now() - promotedAt);
      } else {
        failures.push(`firing did not resume within 30 s of promotion ${round + 1}`);
      }
      await sleep(1_000);
    }
  } finally {
    running = false;
    await loop;
  }
  // Everything acknowledged is due 300 ms later: give it time, then count what never fired.
  await pollUntil(() => [...tally.acknowledged].every((id) => tally.fired.has(id)), 10_000, 20);
  await timeouts.stop({ drainMs: 1_000 });
  const lost = [...tally.acknowledged].filter((id) => !tally.fired.has(id)).length;
  const duplicates = [...tally.fired.values()].filter((count) => count > 1).length;
  if (tally.wrong.length > 0) failures.push(`${tally.wrong.length} rejection(s) of the wrong type, e.g. ${tally.wrong[0]}`);
  if (tally.errorEvents > 0) failures.push(`${tally.errorEvents} engine error event(s) during a normal failover`);
  if (durability && lost > 0) failures.push(`${lost} acknowledged schedule(s) lost with the durability option`);
  return {
    name,
    scheduled: tally.acknowledged.size,
    lost,
    duplicateEffects: 0,
    duplicateDeliveries: duplicates,
    maxLatenessMs: 0,
    boundMs: null,
    // Without the option Redis replication is asynchronous: lost schedules are reported, not failed.
    pass: failures.length === 0,
    failures,
    notes: [
      `firing resumed ${resumed.map((ms) => `${Math.round(ms)} ms`).join(', ')} after the promotion(s) (timeouts due 300 ms after scheduling)`,
      `rejections: ${tally.unavailable} RedisUnavailableError, ${tally.unconfirmed} DurabilityUnconfirmedError, ${tally.wrong.length} other`,
      `engine events: ${tally.warningEvents} warning, ${tally.errorEvents} error`,
      `${lost} of ${tally.acknowledged.size} acknowledged schedules never fired${durability ? '' : ' (no durability option)'}`,
    ],
  };
}

/**
 * A master of a 3-master + 3-replica cluster SIGKILLed under load (three times in the full run,
 * restarting the old one as a replica before the next kill).
 */
async function clusterRun(name: string, context: RunContext, durability?: DurabilityOptions): Promise<ScenarioResult> {
  const cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
  const killed: RedisServer[] = [];
  try {
    return await failoverRun(name, context, { cluster: cluster.startupNodes }, context.quick ? 1 : 3, async () => {
      // The old master comes back as a replica of the promoted one, in sync, before the next kill.
      for (const node of killed.splice(0)) {
        await node.restart();
        const probe = node.client();
        const synced = await pollUntil(async () => /master_link_status:up/.test(await probe.info('replication').catch(() => '')), 20_000, 20);
        if (!synced) throw new Error(`the restarted node ${node.port} did not sync as a replica within 20 s`);
        await pollUntil(async () => (await cluster.replicas()).length === 3, 20_000, 20);
      }
      await cluster.waitForFailover();
      const victim = (await cluster.masters())[0]!;
      await victim.kill();
      killed.push(victim);
      await cluster.waitForFailover();
    }, durability);
  } finally {
    await cluster.stop();
  }
}

/** A cluster master SIGKILLed under load, without the durability option (lost schedules are reported). */
export const clusterFailover: Scenario = {
  name: 'cluster-failover',
  run: (context) => clusterRun('cluster-failover', context),
};

/**
 * The same with `durability: { replicas: 1 }`: no acknowledged schedule may be lost. Until the
 * old master is back as a replica, the promoted one has none, so schedules on its slots are
 * refused (`DurabilityUnconfirmedError`) while the other masters' slots go on.
 */
export const clusterFailoverDurable: Scenario = {
  name: 'cluster-failover-durable',
  run: (context) => clusterRun('cluster-failover-durable', context, { replicas: 1, timeoutMs: 500 }),
};

async function sentinelRun(name: string, context: RunContext, durability?: DurabilityOptions): Promise<ScenarioResult> {
  const group = await RedisSentinelGroup.start({ replicas: 2, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 });
  try {
    return await failoverRun(name, context, group.connectionOptions(), context.quick ? 1 : 2, async () => {
      const primary = await group.primary();
      await primary.kill();
      await group.waitForPromotion(primary.port);
    }, durability);
  } finally {
    await group.stop();
  }
}

/** The primary of a Sentinel group (two replicas, three sentinels) SIGKILLed under load, without the durability option. */
export const sentinelFailover: Scenario = {
  name: 'sentinel-failover',
  run: (context) => sentinelRun('sentinel-failover', context),
};

/** The same with `durability: { replicas: 1 }`: no acknowledged schedule may be lost. */
export const sentinelFailoverDurable: Scenario = {
  name: 'sentinel-failover-durable',
  run: (context) => sentinelRun('sentinel-failover-durable', context, { replicas: 1, timeoutMs: 500 }),
};
