import { randomUUID } from 'node:crypto';
import {
  DurabilityUnconfirmedError,
  DurableTimeouts,
  RedisUnavailableError,
  slotOf,
  type ConnectionOptions,
  type DurabilityOptions,
} from '@durable-timeout/core';
import { RedisCluster, RedisSentinelGroup, type RedisServer } from '@durable-timeout/redis-testing';
import { EffectsReader, EffectsRecorder } from '../harness/effects-store.js';
import { pollUntil, type RunContext, type Scenario, type ScenarioResult } from '../harness/rig.js';
import { SlotTokens } from '../harness/slot-tokens.js';
import { tally as countEffects } from '../harness/tally.js';

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
  /** When the first acknowledged schedule call made at or after `since` resolved (performance.now()). */
  firstAckAfter: (since: number) => number | undefined;
}

/** One failover of a run: when the kill came, when the promotion was seen. */
interface FailoverTimes {
  killedAt: number;
  promotedAt: number;
  /** Replication bytes dropped with the kill (lagging replicas only). */
  droppedBytes?: number;
  /** How the other replicas resynchronised with the new primary, asked at the end of the round. */
  resyncs?: () => Promise<string>;
}

/** Options of `failoverRun`. */
interface FailoverRunOptions {
  /** The option under test; with it, a lost acknowledged schedule fails the scenario. */
  durability?: DurabilityOptions;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TOPIC = 'payment';
const SLOTS = 16;
/** Replication delay of the lag scenarios (ms). */
export const LAG_MS = 20;

/**
 * Runs an engine on `connection` with a schedule loop (batches of 10 every 20 ms, due 300 ms
 * later) and a handler guarded the way users are told to guard theirs (the effects records: a
 * write fenced by the token and idempotent by id), calls `failover` `rounds` times (it kills a
 * primary and resolves once a replica was promoted), waits until nothing is pending or firing,
 * then counts: acknowledged schedules that never fired (lost), effects applied twice, runs after
 * an accepted ack, token regressions (a run whose token is not above an earlier run's of the same
 * id) and slot token repeats (a token given to two ids of one slot), rejections other than
 * `RedisUnavailableError` / `DurabilityUnconfirmedError`, and the time from each promotion until
 * scheduling (a schedule call made after the kill resolved) and firing (a timeout scheduled after
 * the promotion fired) resumed.
 */
async function failoverRun(
  name: string,
  context: RunContext,
  connection: ConnectionOptions,
  rounds: number,
  failover: (round: number) => Promise<FailoverTimes>,
  options: FailoverRunOptions = {},
): Promise<ScenarioResult> {
  const { durability } = options;
  const ackTimes: { calledAt: number; resolvedAt: number }[] = [];
  const tally: Tally = {
    acknowledged: new Set(),
    fired: new Map(),
    unavailable: 0,
    unconfirmed: 0,
    wrong: [],
    errorEvents: 0,
    warningEvents: 0,
    n: 0,
    firstAckAfter: (since) => ackTimes.find(({ calledAt }) => calledAt >= since)?.resolvedAt,
  };
  const effectsPrefix = `fx-${name}-${randomUUID().slice(0, 6)}`;
  const recorder = new EffectsRecorder(context.effectsUrl, effectsPrefix);
  const reader = new EffectsReader(context.effectsClient, effectsPrefix);
  const slotTokens = new SlotTokens();
  const runningTokens = new Map<string, number>();
  const timeouts = new DurableTimeouts({
    connection,
    prefix: `f${randomUUID().slice(0, 8)}`,
    commandTimeoutMs: 500,
    logger: null,
    topics: { [TOPIC]: { slots: SLOTS, leaseMs: 2_000 } },
    ...(durability ? { durability } : {}),
  });
  timeouts.handle(TOPIC, async (event) => {
    tally.fired.set(event.id, (tally.fired.get(event.id) ?? 0) + 1);
    slotTokens.record(slotOf(event.id, SLOTS), event.id, event.fencingToken);
    runningTokens.set(`${event.id}\u0000${event.attempt}`, event.fencingToken);
    await recorder.begin(event.id, event.fencingToken, event.attempt, true, false);
    await sleep(2 + Math.random() * 8);
    await recorder.effect(event.id, event.fencingToken);
  });
  timeouts.on('fired', ({ id, attempt }) => {
    const key = `${id}\u0000${attempt}`;
    const token = runningTokens.get(key);
    runningTokens.delete(key);
    if (token !== undefined) recorder.acked(id, token).catch(() => undefined);
  });
  timeouts.on('error', () => tally.errorEvents++);
  timeouts.on('warning', () => tally.warningEvents++);
  const failures: string[] = [];
  const times: FailoverTimes[] = [];
  const firingResumed: (number | undefined)[] = [];
  const resyncs: string[] = [];
  let running = true;
  await timeouts.start();
  const loop = (async () => {
    while (running) {
      const batch = Array.from({ length: 10 }, () => `id-${tally.n++}`);
      const calledAt = performance.now();
      await Promise.all(
        batch.map((id) =>
          timeouts.schedule(TOPIC, id, { delayMs: 300 }).then(
            () => {
              tally.acknowledged.add(id);
              ackTimes.push({ calledAt, resolvedAt: performance.now() });
            },
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
      const round_ = await failover(round);
      times.push(round_);
      const after = tally.n;
      if (await pollUntil(() => [...tally.fired.keys()].some((id) => Number(id.slice(3)) >= after), 30_000, 20)) {
        firingResumed.push(performance.now() - round_.promotedAt);
      } else {
        firingResumed.push(undefined);
        failures.push(`firing did not resume within 30 s of promotion ${round + 1}`);
      }
      // With the durability option, schedules are confirmed again only once a replica follows the new primary.
      if (!(await pollUntil(() => tally.firstAckAfter(round_.killedAt) !== undefined, 30_000, 20))) {
        failures.push(`no schedule made after kill ${round + 1} was acknowledged within 30 s of the promotion`);
      }
      await sleep(1_000);
      if (round_.resyncs) resyncs.push(await round_.resyncs().catch((error: unknown) => `unknown (${String(error)})`));
    }
  } finally {
    running = false;
    await loop;
  }
  // Everything acknowledged is due 300 ms later; a lost ack re-runs its timeout after the lease:
  // wait until nothing is left pending or firing (and, where no loss is allowed, every
  // acknowledged schedule fired).
  const mustFireAll = durability !== undefined;
  const settled = await pollUntil(async () => {
    if (mustFireAll && ![...tally.acknowledged].every((id) => tally.fired.has(id))) return false;
    const stats = await timeouts.stats(TOPIC).catch(() => undefined);
    return stats !== undefined && stats.pending === 0 && stats.firing === 0;
  }, 15_000, 50);
  await timeouts.stop({ drainMs: 1_000 });
  await recorder.close();
  const figures = countEffects(new Map([...tally.acknowledged].map((id) => [id, 0])), await reader.snapshot());
  await reader.clear().catch(() => undefined);
  const lost = [...tally.acknowledged].filter((id) => !tally.fired.has(id)).length;
  const duplicates = [...tally.fired.values()].reduce((total, count) => total + count - 1, 0);
  if (!settled) failures.push(`the topic did not settle (timeouts left pending or firing${mustFireAll ? ', or acknowledged schedules unfired' : ''}) within 15 s`);
  if (tally.wrong.length > 0) failures.push(`${tally.wrong.length} rejection(s) of the wrong type, e.g. ${tally.wrong[0]}`);
  if (tally.errorEvents > 0) failures.push(`${tally.errorEvents} engine error event(s) during a normal failover`);
  if (mustFireAll && lost > 0) failures.push(`${lost} acknowledged schedule(s) lost${durability ? ' with the durability option' : ''}`);
  if (figures.appliedTwice > 0) failures.push(`${figures.appliedTwice} effect(s) applied twice by the fenced, idempotent handler`);
  if (figures.tokenRegressions > 0) failures.push(`${figures.tokenRegressions} run(s) whose fencing token was not above an earlier run's of the same id`);
  if (slotTokens.repeats > 0) failures.push(`${slotTokens.repeats} fencing token(s) handed to two ids of one slot, e.g. ${slotTokens.firstRepeat}`);
  const ms = (value: number | undefined) => (value === undefined ? 'never' : `${Math.round(value)} ms`);
  const schedulingResumed = times.map(({ killedAt, promotedAt }) => {
    const at = tally.firstAckAfter(killedAt);
    return at === undefined ? undefined : Math.max(0, at - promotedAt);
  });
  const dropped = times.map((round) => round.droppedBytes).filter((bytes) => bytes !== undefined);
  return {
    name,
    scheduled: tally.acknowledged.size,
    lost,
    duplicateEffects: figures.appliedTwice,
    duplicateDeliveries: duplicates,
    maxLatenessMs: 0,
    boundMs: null,
    // Without the option Redis replication is asynchronous: lost schedules are reported, not failed.
    pass: failures.length === 0,
    failures,
    notes: [
      `promoted ${times.map(({ killedAt, promotedAt }) => ms(promotedAt - killedAt)).join(', ')} after the kill(s)${dropped.length > 0 ? `; replication bytes dropped with the kill: ${dropped.join(', ')}` : ''}`,
      `after the promotion(s), scheduling resumed ${schedulingResumed.map(ms).join(', ')}, firing resumed ${firingResumed.map(ms).join(', ')} (timeouts due 300 ms after scheduling)`,
      ...(resyncs.length > 0 ? [`replicas' resyncs with the new primary: ${resyncs.join('; ')}`] : []),
      `rejections: ${tally.unavailable} RedisUnavailableError, ${tally.unconfirmed} DurabilityUnconfirmedError, ${tally.wrong.length} other`,
      `engine events: ${tally.warningEvents} warning, ${tally.errorEvents} error`,
      `${lost} of ${tally.acknowledged.size} acknowledged schedules never fired${durability ? '' : ' (no durability option)'}`,
      `fencing: ${figures.tokenRegressions} token regressions (same id), ${slotTokens.repeats} slot token repeats, ${figures.staleWritesRefused} stale writes refused; ` +
        `${figures.appliedTwice} effects applied twice, ${figures.rerunAfterAck} ids run again after an accepted ack (absorbed by the idempotent write), ${figures.absorbedRepeats} repeats absorbed`,
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
        // Linked is not yet counted by its master's WAIT: wait for its acks too.
        await cluster.waitUntilReplicated();
      }
      await cluster.waitForFailover();
      const victim = (await cluster.masters())[0]!;
      const killedAt = performance.now();
      await victim.kill();
      killed.push(victim);
      await cluster.waitForFailover();
      return { killedAt, promotedAt: performance.now() };
    }, { durability });
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

/**
 * `cluster-failover` with the first master's replica `LAG_MS` behind: the master announces a
 * `LaggingProxy` as its address (clients and its replica's replication link go through it, the
 * cluster bus does not), the proxy holds the replication stream, and what it holds is dropped in
 * the same turn as the master's SIGKILL. The lag lasts until that master is killed, so each round
 * runs on a new cluster (one in the quick run, two in the full one).
 */
async function clusterLagRun(name: string, context: RunContext, durability?: DurabilityOptions): Promise<ScenarioResult> {
  return lagRounds(name, context, durability, async () => {
    const cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000, lag: { delayMs: LAG_MS } });
    const failover = async (): Promise<FailoverTimes> => {
      const killedAt = performance.now();
      const { droppedBytes } = await cluster.killMaster(cluster.nodes[0]!);
      await cluster.waitForFailover();
      return { killedAt, promotedAt: performance.now(), droppedBytes };
    };
    return { connection: { cluster: cluster.startupNodes }, failover, stop: () => cluster.stop() };
  });
}

/** `cluster-failover` with a master's replica 20 ms behind, the held replication dropped at the kill. */
export const clusterFailoverLag: Scenario = {
  name: 'cluster-failover-lag',
  run: (context) => clusterLagRun('cluster-failover-lag', context),
};

/**
 * `cluster-failover-lag` with `durability: { replicas: 1 }`: no acknowledged schedule may be lost.
 * The promoted replica has no replica of its own, so schedules on its slots are refused
 * (`DurabilityUnconfirmedError`) from the promotion on, while the other masters' slots go on.
 */
export const clusterFailoverLagDurable: Scenario = {
  name: 'cluster-failover-lag-durable',
  run: (context) => clusterLagRun('cluster-failover-lag-durable', context, { replicas: 1, timeoutMs: 500 }),
};

/** One Sentinel failover: the primary SIGKILLed (with what the lagging proxy holds dropped), then the wait for the promotion. */
async function killAndPromote(group: RedisSentinelGroup): Promise<FailoverTimes & { killed: RedisServer }> {
  const killedAt = performance.now();
  const { server, droppedBytes } = await group.killPrimary();
  await group.waitForPromotion(server.port);
  const resyncs = async () => {
    const stats = await (await group.primary()).client().info('stats');
    const field = (name: string) => new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1] ?? '?';
    return `${field('sync_full')} full, ${field('sync_partial_ok')} partial`;
  };
  return { killedAt, promotedAt: performance.now(), resyncs, killed: server, ...(group.proxies.length > 0 ? { droppedBytes } : {}) };
}

const SENTINEL_GROUP = { replicas: 2, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 } as const;

async function sentinelRun(name: string, context: RunContext, durability?: DurabilityOptions): Promise<ScenarioResult> {
  const group = await RedisSentinelGroup.start(SENTINEL_GROUP);
  const killed: RedisServer[] = [];
  try {
    return await failoverRun(name, context, group.connectionOptions(), context.quick ? 1 : 2, async () => {
      // The killed primary comes back as a replica of the promoted one before the next kill, as an
      // operator restarts a failed node: otherwise the second promotion leaves a primary with no
      // replica at all, and `durability` can confirm nothing from then on.
      for (const node of killed.splice(0)) await group.rejoin(node);
      const round = await killAndPromote(group);
      killed.push(round.killed);
      return round;
    }, { durability });
  } finally {
    await group.stop();
  }
}

/**
 * The Sentinel failover with both replicas `LAG_MS` behind (a `LaggingProxy` holds the primary's
 * replication stream) and what it holds dropped at the SIGKILL. The lag lasts until the first
 * failover, so each round runs on a new group (one in the quick run, two in the full one).
 */
async function sentinelLagRun(name: string, context: RunContext, durability?: DurabilityOptions): Promise<ScenarioResult> {
  return lagRounds(name, context, durability, async () => {
    const group = await RedisSentinelGroup.start({ ...SENTINEL_GROUP, lag: { delayMs: LAG_MS } });
    return { connection: group.connectionOptions(), failover: () => killAndPromote(group), stop: () => group.stop() };
  });
}

/** A Redis set-up of one lag round: how to reach it, its one failover, and how to stop it. */
interface LagRound {
  connection: ConnectionOptions;
  failover: () => Promise<FailoverTimes>;
  stop: () => Promise<void>;
}

/**
 * The rounds of a lag scenario: the lag lasts until the lagging node is killed, so each round
 * starts a new set-up (one round in the quick run, two in the full one), runs one failover under
 * load on it and stops it; the rounds' results are merged.
 */
async function lagRounds(name: string, context: RunContext, durability: DurabilityOptions | undefined, start: () => Promise<LagRound>): Promise<ScenarioResult> {
  const rounds = context.quick ? 1 : 2;
  const results: ScenarioResult[] = [];
  for (let round = 0; round < rounds; round++) {
    const setup = await start();
    try {
      // Without the option the lag loses acknowledged schedules by design: reported, not failed.
      results.push(await failoverRun(name, context, setup.connection, 1, setup.failover, { durability }));
    } finally {
      await setup.stop();
    }
  }
  return mergeRounds(name, results);
}

/** One result of runs of the same scenario: counts added, failures and notes kept per round. */
export function mergeRounds(name: string, results: readonly ScenarioResult[]): ScenarioResult {
  if (results.length === 1) return results[0]!;
  const sum = (pick: (result: ScenarioResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const tagged = (lines: (result: ScenarioResult) => string[]) => results.flatMap((result, index) => lines(result).map((line) => `round ${index + 1}: ${line}`));
  return {
    name,
    scheduled: sum((result) => result.scheduled),
    lost: sum((result) => result.lost),
    duplicateEffects: sum((result) => result.duplicateEffects),
    duplicateDeliveries: sum((result) => result.duplicateDeliveries),
    maxLatenessMs: Math.max(...results.map((result) => result.maxLatenessMs)),
    boundMs: results[0]!.boundMs,
    pass: results.every((result) => result.pass),
    failures: tagged((result) => result.failures),
    notes: tagged((result) => result.notes),
  };
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

/** `sentinel-failover` with both replicas 20 ms behind, the held replication dropped at the kill. */
export const sentinelFailoverLag: Scenario = {
  name: 'sentinel-failover-lag',
  run: (context) => sentinelLagRun('sentinel-failover-lag', context),
};

/** `sentinel-failover-lag` with `durability: { replicas: 1 }`: no acknowledged schedule may be lost. */
export const sentinelFailoverLagDurable: Scenario = {
  name: 'sentinel-failover-lag-durable',
  run: (context) => sentinelLagRun('sentinel-failover-lag-durable', context, { replicas: 1, timeoutMs: 500 }),
};
