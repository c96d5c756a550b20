import { DurableTimeouts } from '@durable-timeout/core';
import { RedisServer } from '@durable-timeout/redis-testing';
import { ReplyDroppingProxy } from '../harness/reply-dropping-proxy.js';
import { respArrayLength } from '../harness/resp.js';
import { CHAOS_TOPIC, pollUntil, Rig, sleep, SWEEP_MS, withRig, type RunContext, type Scenario, type ScenarioResult } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';

const LEASE_MS = CHAOS_TOPIC.leaseMs!;
/** How long Redis stays dead after each SIGKILL in the crash scenario. */
const DOWN_MS = 1_000;

/**
 * One crash run: schedules stream in, Redis is SIGKILLed mid-stream and restarted on the same
 * data. Returns the rig's result (lost counts only acknowledged schedules).
 */
async function crashRun(
  name: string,
  context: RunContext,
  appendfsync: 'always' | 'everysec',
): Promise<{ result: ScenarioResult; crashes: number }> {
  let crashes = 0;
  const result = await withRig(name, context, { redis: { appendonly: true, appendfsync } }, async (rig) => {
    const plan = context.quick
      ? { count: 1_000, durationMs: 6_000, delayMs: [100, 2_000] as [number, number] }
      : { count: 6_000, durationMs: 40_000, delayMs: [100, 4_000] as [number, number] };
    await rig.pool.start(3);
    await rig.stream(plan, async (signal) => {
      const everyMs = context.quick ? 2_500 : 10_000;
      while (!signal.done) {
        await sleep(everyMs);
        if (signal.done) break;
        await rig.redis.kill();
        crashes += 1;
        await sleep(DOWN_MS);
        await rig.redis.restart();
      }
    });
    const settled = await rig.settle(plan.delayMs[1] + DOWN_MS + LEASE_MS + SWEEP_MS + 20_000);
    return rig.result(
      { maxLost: 0, maxDuplicateEffects: 0, boundMs: DOWN_MS + LEASE_MS + SWEEP_MS + 2_000 },
      [
        { name: 'settled', ok: settled },
        { name: 'Redis crashed', ok: crashes >= 1, detail: `${crashes}` },
      ],
    );
  });
  return { result, crashes };
}

/** Whether an engine started on a server without persistence logs a warning about it. */
async function warnsWithoutPersistence(): Promise<boolean> {
  const server = await RedisServer.start({ appendonly: false });
  const lines: string[] = [];
  const log = (message: string) => lines.push(message);
  const engine = new DurableTimeouts({ connection: server.url, prefix: 'chaos-nopersist', topics: { chaos: {} }, logger: { log, warn: log, error: log } });
  try {
    engine.handle('chaos', () => undefined);
    await engine.start();
    await engine.schedule('chaos', 'probe', { delayMs: 60_000 });
    return await pollUntil(() => lines.some((line) => /persist|append|aof/i.test(line)), 2_000);
  } finally {
    await engine.stop({ drainMs: 0 });
    await server.stop();
  }
}

/**
 * 4. Redis SIGKILLed and restarted. Under `appendfsync always` no acknowledged schedule is lost;
 * under `everysec` the loss is reported as a figure. The library warns when there is no persistence.
 */
export const redisCrash: Scenario = {
  name: 'redis-crash',
  run: async (context) => {
    const always = await crashRun('redis-crash', context, 'always');
    const everysec = await crashRun('redis-crash-everysec', context, 'everysec');
    const warned = await warnsWithoutPersistence();
    const checks: Check[] = [{ name: 'warns at start when the server has no persistence', ok: warned }];
    const failures = [...always.result.failures, ...checks.filter((check) => !check.ok).map((check) => check.name)];
    return {
      ...always.result,
      pass: failures.length === 0,
      failures,
      notes: [
        ...always.result.notes,
        `appendfsync always: ${always.crashes} SIGKILLs (down ${DOWN_MS} ms each), ${always.result.lost} of ${always.result.scheduled} acknowledged lost`,
        `appendfsync everysec (figure, not judged): ${everysec.crashes} SIGKILLs, ${everysec.result.lost} of ${everysec.result.scheduled} acknowledged lost, duplicate effects ${everysec.result.duplicateEffects}, max lateness ${everysec.result.maxLatenessMs} ms`,
      ],
    };
  },
};

/**
 * 5. Redis frozen (SIGSTOP) for 2 s, then for longer than the lease, then down for a minute (10 s
 * in --quick): `schedule` rejects within about a second while it is down, workers resume within 2 s
 * after it returns, nothing lost, no duplicate effect.
 */
export const redisStall: Scenario = {
  name: 'redis-stall',
  run: (context) =>
    withRig('redis-stall', context, { redis: { appendonly: true, appendfsync: 'always' } }, async (rig) => {
      const downMs = context.quick ? 10_000 : 60_000;
      const plan = context.quick
        ? { count: 800, durationMs: 12_000, delayMs: [100, 2_000] as [number, number] }
        : { count: 3_000, durationMs: 30_000, delayMs: [100, 3_000] as [number, number] };
      const resumes: Array<{ fault: string; ms: number }> = [];

      /**
       * Runs one fault with markers: timeouts scheduled just before it and due while it lasts. The
       * resume time is from the end of the fault to the effect of the last marker.
       */
      const withMarkers = async (fault: string, begin: () => Promise<void> | void, hold: () => Promise<void>, end: () => Promise<void> | void) => {
        const markers = Array.from({ length: 50 }, (_, i) => ({ id: `${fault}-marker-${i}`, delayMs: 500 + i * 10 }));
        await rig.schedule(markers);
        await begin();
        await hold();
        await end();
        const back = Date.now();
        const fired = await pollUntil(async () => {
          const snapshot = await rig.reader.snapshot();
          return markers.every(({ id }) => !rig.expected.has(id) || snapshot.effectAt.has(id));
        }, 30_000, 50);
        resumes.push({ fault, ms: fired ? Date.now() - back : Number.POSITIVE_INFINITY });
      };

      await rig.pool.start(3);
      await rig.stream(plan, async () => {
        for (const pauseMs of [2_000, LEASE_MS + 2_000]) {
          await sleep(2_000);
          await withMarkers(`sigstop-${pauseMs}ms`, () => rig.redis.pause(), () => sleep(pauseMs), () => rig.redis.resume());
        }
      });
      const settledBefore = await rig.settle(plan.delayMs[1] + LEASE_MS + SWEEP_MS + 20_000);

      const rejections: number[] = [];
      await withMarkers(
        `down-${downMs}ms`,
        () => rig.redis.terminate(),
        async () => {
          const downSince = Date.now();
          for (let probe = 0; probe < 3; probe += 1) {
            const started = Date.now();
            const rejected = await rig.engine.schedule(rig.topic, `while-down-${probe}`, { delayMs: 0 }).then(() => false, () => true);
            rejections.push(rejected ? Date.now() - started : Number.POSITIVE_INFINITY);
          }
          await sleep(Math.max(0, downMs - (Date.now() - downSince)));
        },
        () => rig.redis.restart(),
      );
      const settled = await rig.settle(SWEEP_MS + 20_000);
      const worstReject = Math.max(...rejections);
      const worstResume = Math.max(...resumes.map((resume) => resume.ms));
      return rig.result(
        { maxLost: 0, maxDuplicateEffects: 0, boundMs: downMs + LEASE_MS + SWEEP_MS + 1_000 },
        [
          { name: 'settled after the pauses', ok: settledBefore },
          { name: 'settled after the outage', ok: settled },
          { name: 'schedule() rejects within about 1 s while Redis is down (<= 1,500 ms)', ok: worstReject <= 1_500, detail: `${worstReject} ms` },
          { name: 'workers resume within 2 s after Redis returns (every timeout due meanwhile fired)', ok: worstResume <= 2_000, detail: `${worstResume} ms` },
        ],
        [
          `schedule() while down rejected after ${rejections.join(', ')} ms (commandTimeoutMs 1,000)`,
          `timeouts due during the fault fired after it ended within: ${resumes.map((resume) => `${resume.fault} ${resume.ms} ms`).join(', ')}`,
        ],
      );
    }),
};

/** True for the claim script call (the only one given the slot's `:seq` key). */
function isClaim(args: readonly string[]): boolean {
  return /^evalsha$|^eval$/i.test(args[0] ?? '') && args.some((arg) => arg.endsWith(':seq'));
}

/** True for ack / ack-many calls (lease key, no due key). */
function isAck(args: readonly string[]): boolean {
  return /^evalsha$|^eval$/i.test(args[0] ?? '') && args.some((arg) => arg.endsWith(':lease')) && !args.some((arg) => arg.endsWith(':due'));
}

/**
 * 8. Replies lost after the script ran (a proxy cuts the worker connection instead of delivering
 * the reply of a claim or an ack): orphaned claims come back within lease + sweep, nothing lost.
 */
export const lostReplies: Scenario = {
  name: 'lost-replies',
  run: async (context) => {
    const redis = await RedisServer.start();
    const proxy = await ReplyDroppingProxy.start({ host: redis.host, port: redis.port });
    try {
      return await withRig('lost-replies', context, { redis, workerConnection: proxy.url }, async (rig: Rig) => {
        const plan = context.quick
          ? { count: 800, durationMs: 8_000, delayMs: [100, 1_500] as [number, number] }
          : { count: 6_000, durationMs: 60_000, delayMs: [100, 3_000] as [number, number] };
        await rig.pool.start(3);
        let armed = 0;
        await rig.stream(plan, async (signal) => {
          while (!signal.done) {
            await sleep(700);
            // Claim replies are dropped only when they carry timeouts (more than the 3 header fields).
            if (armed % 2 === 0) proxy.dropNextReplies(1, isClaim, (reply) => respArrayLength(reply) > 3);
            else proxy.dropNextReplies(1, isAck);
            armed += 1;
          }
        });
        const settled = await rig.settle(plan.delayMs[1] + LEASE_MS + SWEEP_MS + 20_000);
        const figures = await rig.figures();
        return rig.result(
          { maxLost: 0, maxDuplicateEffects: 0, boundMs: LEASE_MS + SWEEP_MS + 1_000 },
          [
            { name: 'settled', ok: settled },
            { name: 'replies were dropped', ok: proxy.dropped >= 2, detail: `${proxy.dropped}` },
            { name: 'orphaned claims were recovered (first run on a later attempt)', ok: figures.recoveredOrphans >= 1, detail: `${figures.recoveredOrphans}` },
          ],
          [`${proxy.dropped} replies dropped after the script ran (claims and acks, alternately); ${figures.recoveredOrphans} orphaned timeouts recovered by their lease`],
          figures,
        );
      });
    } finally {
      await proxy.close();
      await redis.stop();
    }
  },
};
