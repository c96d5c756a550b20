import { RedisServer } from '@durable-timeout/redis-testing';
import { SubscriberCutProxy } from '../harness/subscriber-cut-proxy.js';
import { SWEEP_MS, sleep, withRig, type Scenario } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';

/** One timeout is scheduled this often, each due DELAY_MS later: alone in its slot, so only a wake-up (or the sweep) finds it. */
const EVERY_MS = 250;
const DELAY_MS = 300;
/** After the heal, wake-ups must be back within this long (the subscription resumes). */
const RESUME_MS = 1_000;
/** A timeout found by its wake-up fires within this of its due time; one found by the sweep, up to SWEEP_MS. */
const WOKEN_MS = 400;

/**
 * Only the wake-up subscription is partitioned: a proxy in the worker's path to Redis holds every
 * byte of its pub/sub connection, both ways and without closing it, while its command connection
 * flows. Timeouts are scheduled one at a time, each alone in its slot, so only a wake-up or the
 * backstop sweep can find it. During the cut, firing must go on within the sweep interval; after
 * the heal, the subscription must come back: every timeout due RESUME_MS after the heal fires
 * within WOKEN_MS of its due time. Quick: a cut of 2 sweeps; full: of 10.
 */
export const subscriberPartition: Scenario = {
  name: 'subscriber-partition',
  run: async (context) => {
    const redis = await RedisServer.start();
    const proxy = await SubscriberCutProxy.start({ host: redis.host, port: redis.port });
    try {
      return await withRig('subscriber-partition', context, { redis, workerConnection: { host: '127.0.0.1', port: proxy.port } }, async (rig) => {
        const [beforeMs, cutMs, afterMs] = context.quick ? [1_500, 2 * SWEEP_MS, 3_000] : [5_000, 10 * SWEEP_MS, 10_000];
        const durationMs = beforeMs + cutMs + afterMs;
        await rig.pool.start(1);
        let cutAt = 0;
        let healAt = 0;
        await rig.stream({ count: Math.round(durationMs / EVERY_MS), durationMs, delayMs: [DELAY_MS, DELAY_MS] }, async () => {
          await sleep(beforeMs);
          proxy.cut();
          cutAt = Date.now();
          await sleep(cutMs);
          proxy.heal();
          healAt = Date.now();
        });
        const settled = await rig.settle(DELAY_MS + SWEEP_MS + 10_000);
        const figures = await rig.figures();
        const { effectAt } = await rig.reader.snapshot();
        const lateness = (from: number, to: number) =>
          [...rig.expected].filter(([, dueAt]) => dueAt >= from && dueAt < to).map(([id, dueAt]) => (effectAt.get(id) ?? Infinity) - dueAt);
        const duringCut = lateness(cutAt + DELAY_MS, healAt);
        const afterHeal = lateness(healAt + RESUME_MS, Infinity);
        const maxOf = (values: number[]) => (values.length ? Math.max(...values) : 0);
        const checks: Check[] = [
          { name: 'settled', ok: settled },
          { name: 'the subscription was cut', ok: proxy.stalled >= 1, detail: `${proxy.stalled} pub/sub connections cut` },
          {
            name: 'the cut mattered (timeouts due during it waited for the sweep)',
            ok: maxOf(duringCut) > WOKEN_MS,
            detail: `max lateness during the cut ${maxOf(duringCut)} ms`,
          },
          {
            name: `wake-ups back after the heal (every timeout due ${RESUME_MS} ms after it fired within ${WOKEN_MS} ms)`,
            ok: afterHeal.length >= 4 && maxOf(afterHeal) <= WOKEN_MS,
            detail: `${afterHeal.length} due then, max lateness ${maxOf(afterHeal)} ms`,
          },
        ];
        return rig.result(
          // During the cut the sweep alone finds new timeouts: within one sweep interval, plus the handler and the ack.
          { maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 500 },
          checks,
          [
            `pub/sub cut for ${cutMs} ms (sweep every ${SWEEP_MS} ms); one timeout every ${EVERY_MS} ms, due ${DELAY_MS} ms later`,
            `max lateness: during the cut ${maxOf(duringCut)} ms over ${duringCut.length} timeouts, from ${RESUME_MS} ms after the heal ${maxOf(afterHeal)} ms over ${afterHeal.length}`,
          ],
          figures,
        );
      });
    } finally {
      await proxy.close();
      await redis.stop();
    }
  },
};
