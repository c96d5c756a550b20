import { LEASE_EXPIRED_ERROR, RedisTimeoutStore, slotOf, type SlotMigrationReport } from '@durable-timeout/core';
import { CHAOS_TOPIC, sleep, SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';
import type { ScheduleItem } from '../worker-protocol.js';
import { deliveriesOf } from './poison.js';

const MAX_ATTEMPTS = 4;
const BACKOFF = { baseMs: 200, capMs: 800 };

/**
 * 13. A crash-looping handler: a timeout whose handler kills its own process on every attempt,
 * three workers that are restarted when they die, and healthy traffic meanwhile. Each expired
 * lease counts as a failed attempt, so the poison timeout gets exactly `maxAttempts` deliveries
 * and then the dead letters (lease-expired error); every healthy timeout fires; once it is dead no
 * worker dies any more.
 */
export const crashLoop: Scenario = {
  name: 'crash-loop',
  run: (context) =>
    withRig('crash-loop', context, { topicOptions: { maxAttempts: MAX_ATTEMPTS, backoff: BACKOFF }, pool: { respawn: true } }, async (rig) => {
      const poisonIds = context.quick ? ['crash-0'] : ['crash-0', 'crash-1'];
      const plan = { count: context.quick ? 600 : 4_000, durationMs: context.quick ? 6_000 : 30_000, delayMs: [100, 2_000] as [number, number] };
      await rig.pool.start(3);
      // Outside `expected`: a poison timeout never has an effect.
      for (const [i, id] of poisonIds.entries()) await rig.engine.schedule(rig.topic, id, { delayMs: 300 + i * 700, payload: { chaos: 'exit-always' } });
      await rig.stream(plan);
      const leaseMs = CHAOS_TOPIC.leaseMs!;
      const settled = await rig.settle(plan.delayMs[1] + MAX_ATTEMPTS * (leaseMs + BACKOFF.capMs) + SWEEP_MS + 20_000, { dead: poisonIds.length });
      const respawnsWhenDead = rig.pool.respawns;
      // Long enough for another lease to run out: a crash loop would kill a worker again by then.
      await sleep(leaseMs + SWEEP_MS + BACKOFF.capMs);
      const dead = await rig.engine.listDead(rig.topic, { limit: 100 });
      const letters = poisonIds.map((id) => dead.find((letter) => letter.id === id));
      // A delivery that fails on purpose is not counted among the effects' deliveries: its run log has
      // every start, and an attempt lost with a worker that exited before the start was recorded.
      const deliveries = await Promise.all(
        poisonIds.map(async (id, i) => {
          const { starts, unstarted } = deliveriesOf(await rig.reader.runLog(id), letters[i]?.attempts ?? 0);
          return starts + unstarted;
        }),
      );
      const checks: Check[] = [
        { name: 'settled with the crashing timeouts dead', ok: settled },
        {
          name: `each crashing timeout delivered exactly maxAttempts (${MAX_ATTEMPTS}) times`,
          ok: deliveries.every((count) => count === MAX_ATTEMPTS),
          detail: deliveries.join(', '),
        },
        {
          name: 'then dead-lettered with the lease-expired error',
          ok: letters.every((letter) => letter?.attempts === MAX_ATTEMPTS && letter.lastError === LEASE_EXPIRED_ERROR),
          detail: letters.map((letter) => `${letter?.attempts}: ${letter?.lastError}`).join('; '),
        },
        { name: 'no healthy timeout dead-lettered', ok: dead.every((letter) => poisonIds.includes(letter.id)), detail: `${dead.length} dead` },
        {
          name: 'workers died once per crashing delivery, and no more once the timeouts were dead',
          ok: respawnsWhenDead >= MAX_ATTEMPTS && respawnsWhenDead <= poisonIds.length * MAX_ATTEMPTS && rig.pool.respawns === respawnsWhenDead,
          detail: `${respawnsWhenDead} then ${rig.pool.respawns}`,
        },
        { name: 'three live workers at the end', ok: rig.pool.alive.length === 3, detail: `${rig.pool.alive.length}` },
      ];
      return rig.result({ maxLost: 0, maxDuplicateEffects: 0, boundMs: leaseMs + SWEEP_MS + BACKOFF.capMs + 2_000 }, checks, [
        `${poisonIds.length} crashing timeout(s): ${deliveries.join(', ')} deliveries, ${respawnsWhenDead} worker restarts, then dead; ${plan.count} healthy timeouts alongside`,
      ]);
    }),
};

/**
 * 14. Changing the slot count under load: a large backlog of pending timeouts and a stream of new
 * ones while workers configured with the old count fire them; the harness moves the topic from 8
 * to 32 slots, a worker configured with 32 joins, then the topic moves to 16 slots. Nothing lost,
 * nothing with two effects; calls on ids wait at most a slot's move.
 */
export const slotMigration: Scenario = {
  name: 'slot-migration',
  run: (context) =>
    withRig('slot-migration', context, {}, async (rig) => {
      const backlog = context.quick ? 10_000 : 100_000;
      const window: [number, number] = context.quick ? [6_000, 20_000] : [15_000, 60_000];
      await rig.pool.start(2);
      for (let start = 0; start < backlog; start += 5_000) {
        const items: ScheduleItem[] = [];
        for (let i = start; i < Math.min(backlog, start + 5_000); i += 1) {
          items.push({ id: `b-${i}`, delayMs: Math.round(window[0] + Math.random() * (window[1] - window[0])), payload: { n: i } });
        }
        await rig.schedule(items);
      }
      const pendingAtStart = (await rig.engine.stats(rig.topic)).pending;
      const reports: SlotMigrationReport[] = [];
      await rig.stream({ count: context.quick ? 2_000 : 10_000, durationMs: context.quick ? 8_000 : 30_000, delayMs: [100, 3_000], idPrefix: 's' }, async () => {
        reports.push(await rig.engine.migrateSlots(rig.topic, 32));
        await rig.pool.start(1, [{ topicOptions: { ...rig.topicOptions, slots: 32 } }]);
        reports.push(await rig.engine.migrateSlots(rig.topic, 16));
        await rig.pool.start(1, [{ topicOptions: { ...rig.topicOptions, slots: 16 } }]);
      });
      const settled = await rig.settle(window[1] + SWEEP_MS + 30_000);
      const counters = await rig.pool.counters();
      const checks: Check[] = [
        { name: 'settled: every timeout fired, nothing left', ok: settled },
        { name: `a backlog of ${backlog} pending when the first move began`, ok: pendingAtStart >= backlog, detail: `${pendingAtStart}` },
        { name: 'both moves finished (8 -> 32 -> 16 slots)', ok: reports.length === 2 && reports[0]!.to === 32 && reports[1]!.to === 16 },
        { name: 'no engine error in any worker', ok: counters.errors === 0, detail: `${counters.errors}` },
        { name: 'no schedule refused', ok: rig.rejected.size === 0, detail: [...rig.rejected.values()].slice(0, 2).join('; ') },
      ];
      return rig.result({ maxLost: 0, maxDuplicateEffects: 0, boundMs: 5_000 }, checks, [
        `${pendingAtStart} pending at the first move; ${reports.map((report) => `${report.from} -> ${report.to}: ${report.moved} moved in ${(report.tookMs / 1000).toFixed(1)} s`).join('; ')}`,
        `workers: 2 on 8 slots from the start, 1 on 32 and 1 on 16 joining after each move; ${counters.stale} stale acks`,
      ]);
    }),
};

/** What a corrupted entry is made of (from its stored value), and whether the data is deleted instead. */
const CORRUPTIONS: readonly [string, (value: string) => string | null][] = [
  ['truncated', (value) => value.slice(0, Math.floor(value.length / 2))],
  ['wrong separator', (value) => value.replace('|', ';')],
  ['non-numeric meta', (value) => `abc${value.slice(value.indexOf('|'))}`],
  ['huge number', (value) => `${'9'.repeat(30)}${value.slice(value.indexOf('|'))}`],
  ['invalid JSON', (value) => `${value.slice(0, value.indexOf('|'))}|{not json`],
  ['empty', () => ''],
  ['missing', () => null],
];

/**
 * 15. Corrupt stored entries under load: entries overwritten with values in no known layout (or
 * deleted) between schedule and fire, while healthy traffic runs. No slot stops, no worker fails a
 * claim, every healthy timeout fires, and each damaged one lands in the dead letters with an
 * error naming the problem.
 */
export const corruptEntries: Scenario = {
  name: 'corrupt-entries',
  run: (context) =>
    withRig('corrupt-entries', context, {}, async (rig) => {
      const damaged = Array.from({ length: context.quick ? 42 : 210 }, (_, i) => `bad-${i}`);
      const plan = { count: context.quick ? 1_000 : 6_000, durationMs: context.quick ? 5_000 : 25_000, delayMs: [200, 3_000] as [number, number] };
      await rig.pool.start(2);
      const store = rig.engine.store as RedisTimeoutStore;
      const raw = rig.redis.client();
      const slots = rig.topicOptions.slots!;
      const kinds = new Map<string, string>();
      await rig.stream(plan, async () => {
        for (const [i, id] of damaged.entries()) {
          await rig.engine.schedule(rig.topic, id, { delayMs: 1_500 + (i % 20) * 50, payload: { id, note: 'to be damaged' } });
          const key = store.keys.dataKey(rig.topic, slotOf(id, slots), id);
          const [kind, damage] = CORRUPTIONS[i % CORRUPTIONS.length]!;
          const value = (await raw.hget(key, id)) ?? '';
          const corrupted = damage(value);
          if (corrupted === null) await raw.hdel(key, id);
          else await raw.hset(key, id, corrupted);
          kinds.set(id, kind);
          await sleep(10);
        }
      });
      const settled = await rig.settle(plan.delayMs[1] + SWEEP_MS + 20_000, { dead: damaged.length });
      const dead = await rig.engine.listDead(rig.topic, { limit: 1_000 });
      const named = damaged.filter((id) => /corrupt stored entry|missing stored entry|not valid JSON/.test(dead.find((letter) => letter.id === id)?.lastError ?? ''));
      const counters = await rig.pool.counters();
      const checks: Check[] = [
        { name: 'settled with every damaged entry dead', ok: settled },
        { name: 'each damaged entry dead-lettered with an error naming the problem', ok: named.length === damaged.length, detail: `${named.length} of ${damaged.length}` },
        { name: 'no healthy timeout dead-lettered', ok: dead.every((letter) => kinds.has(letter.id)), detail: `${dead.length} dead` },
        { name: 'no claim failed in any worker (no engine error)', ok: counters.errors === 0, detail: `${counters.errors}` },
        { name: 'no worker died', ok: rig.pool.respawns === 0 && rig.pool.alive.length === 2 },
      ];
      const byKind = [...new Set(kinds.values())].map((kind) => `${kind} ${[...kinds].filter(([, k]) => k === kind).length}`).join(', ');
      return rig.result({ maxLost: 0, maxDuplicateEffects: 0, boundMs: SWEEP_MS + 2_000 }, checks, [
        `${damaged.length} entries damaged while ${plan.count} healthy timeouts ran (${byKind}); ${counters.dead} dead-lettered by the workers`,
      ]);
    }),
};
