import { LATE_ERROR, type DeadLetter } from '@durable-timeout/core';
import { pollUntil, sleep, SWEEP_MS, withRig, type Rig, type RunContext, type Scenario, type ScenarioResult } from '../harness/rig.js';
import { tally, type Check } from '../harness/tally.js';
import type { ScheduleItem } from '../worker-protocol.js';

/** How far a second's count may go above its allowance before the rate check fails. */
const RATE_TOLERANCE = 0.05;

/** Counts `times` (ms) in whole seconds from `from`: index k holds those in [from + k s, from + (k + 1) s). */
export function perSecondCounts(times: readonly number[], from: number): number[] {
  const counts: number[] = [];
  for (const time of times) {
    const second = Math.floor((time - from) / 1_000);
    if (second < 0) continue;
    while (counts.length <= second) counts.push(0);
    counts[second]! += 1;
  }
  return counts;
}

/**
 * Checks per-second counts against a token bucket of `perSecond` holding at most `burst`, full at
 * the first count (the backlog waited out an idle spell). A second may take a second's refill plus
 * what the bucket held when it began: the whole burst for the first second, then what the seconds
 * before left unused, never more than the burst (so a second that ran short, e.g. while a worker's
 * event loop stalled and its starts slipped into the next second, lets the next one run over by as
 * much). The refill part gets the tolerance. Returns a line for each second over its allowance.
 */
export function overTheLimit(counts: readonly number[], perSecond: number, burst: number): string[] {
  const over: string[] = [];
  let held = burst;
  counts.forEach((count, second) => {
    const allowed = held + perSecond * (1 + RATE_TOLERANCE);
    if (count > allowed) over.push(`second ${second}: ${count} > ${Math.floor(allowed)} (${Math.floor(held)} held + ${perSecond} refilled + ${RATE_TOLERANCE * 100} %)`);
    held = Math.min(burst, Math.max(0, held + perSecond - count));
  });
  return over;
}

/**
 * Schedules `count` timeouts due evenly over `spanMs` from `dueFrom` (Redis clock, the same host
 * clock as `Date.now()` here), in chunks, outside any outage.
 */
async function scheduleDueWindow(rig: Rig, count: number, dueFrom: number, spanMs: number): Promise<void> {
  for (let start = 0; start < count; start += 5_000) {
    const items: ScheduleItem[] = [];
    for (let i = start; i < Math.min(count, start + 5_000); i += 1) items.push({ id: `o-${i}`, at: dueFrom + Math.floor((i * spanMs) / count), payload: { n: i } });
    await rig.schedule(items);
  }
}

/**
 * Takes the rig's Redis down (SIGTERM: a clean stop, the AOF flushed) from just before `dueFrom`
 * for `downMs`, and starts it again on the same data. Returns whether it went down before the first
 * timeout fell due, and when it was back.
 */
async function outage(rig: Rig, dueFrom: number, downMs: number): Promise<{ downBeforeDue: boolean; downAt: number; backAt: number }> {
  const downBeforeDue = Date.now() < dueFrom - 200;
  await sleep(dueFrom - 200 - Date.now());
  const downAt = Date.now();
  await rig.redis.terminate();
  await sleep(downAt + downMs - Date.now());
  await rig.redis.restart();
  return { downBeforeDue, downAt, backAt: Date.now() };
}

/**
 * Phase 1 of `outage-catch-up`: Redis down while the whole backlog falls due, three workers, a
 * rate-limited topic. After the outage the backlog is fired at the limit, never faster.
 */
async function catchUpRun(context: RunContext): Promise<ScenarioResult> {
  const plan = context.quick
    ? { count: 5_000, downMs: 5_000, perSecond: 1_000, prepMs: 3_000 }
    : { count: 100_000, downMs: 60_000, perSecond: 2_000, prepMs: 20_000 };
  const burst = Math.ceil(plan.perSecond);
  return withRig('outage-catch-up', context, { redis: { appendonly: true }, topicOptions: { rateLimit: { perSecond: plan.perSecond, burst } } }, async (rig) => {
    await rig.pool.start(3);
    const dueFrom = Date.now() + plan.prepMs;
    const spanMs = plan.downMs - 1_000;
    await scheduleDueWindow(rig, plan.count, dueFrom, spanMs);
    const { downBeforeDue, downAt, backAt } = await outage(rig, dueFrom, plan.downMs);
    const catchUpMs = (Math.max(0, plan.count - burst) / plan.perSecond) * 1_000;
    const settled = await rig.settle(catchUpMs * 1.5 + SWEEP_MS + 20_000);
    const snapshot = await rig.reader.snapshot();
    const starts = [...snapshot.firstDelivery.values()];
    const firstStart = Math.min(...starts);
    const lastStart = Math.max(...starts);
    const counts = perSecondCounts(starts, firstStart);
    const over = overTheLimit(counts, plan.perSecond, burst);
    const repeats = [...snapshot.deliveries.values()].reduce((total, count) => total + Math.max(0, count - 1), 0);
    const peakLater = Math.max(0, ...counts.slice(1, -1));
    const checks: Check[] = [
      { name: 'settled: every timeout fired, nothing left', ok: settled },
      { name: 'Redis went down before the first timeout fell due', ok: downBeforeDue },
      { name: 'nothing fired before Redis came back', ok: firstStart >= downAt + plan.downMs, detail: `first start ${firstStart - backAt} ms after restart() returned` },
      {
        name: `fires per second within the token bucket (perSecond + ${RATE_TOLERANCE * 100} %, plus the tokens held: burst at first, then what earlier seconds left, at most burst)`,
        ok: over.length === 0,
        detail: over.slice(0, 5).join(', '),
      },
      { name: 'no repeat run to escape the count (duplicate deliveries)', ok: repeats === 0, detail: `${repeats}` },
    ];
    return rig.result({ maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0 }, checks, [
      `rate limit ${plan.perSecond}/s, burst ${burst}: ${plan.count} due during ${plan.downMs / 1_000} s down, caught up in ${((lastStart - firstStart) / 1_000).toFixed(1)} s from the first start (${firstStart - backAt} ms after Redis was back); mean ${Math.round((plan.count / Math.max(1, lastStart - firstStart)) * 1_000)}/s`,
      `starts per second: ${counts.join(', ')} (first second allowed ${Math.floor(burst + plan.perSecond * (1 + RATE_TOLERANCE))}, later ones ${Math.floor(plan.perSecond * (1 + RATE_TOLERANCE))} plus what the earlier ones left unused); peak of the full later seconds ${peakLater}`,
    ]);
  });
}

/** Every dead letter of the topic (`listDead` pages, up to its 10,000 reach). */
async function allDead(rig: Rig): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (let offset = 0; offset < 10_000; offset += 1_000) {
    const page = await rig.engine.listDead(rig.topic, { offset, limit: 1_000 });
    letters.push(...page);
    if (page.length < 1_000) break;
  }
  return letters;
}

/**
 * Phase 2 of `outage-catch-up`: the same outage on a topic with `late: { afterMs, action:
 * 'dead-letter' }`. What waited out more than `afterMs` is dead-lettered as late, never fired; the
 * rest fires; nothing is lost.
 */
async function lateRun(context: RunContext): Promise<ScenarioResult> {
  const plan = context.quick
    ? { count: 2_000, downMs: 3_000, afterMs: 1_500, prepMs: 2_000 }
    : { count: 10_000, downMs: 30_000, afterMs: 10_000, prepMs: 5_000 };
  return withRig('outage-catch-up-late', context, { redis: { appendonly: true }, topicOptions: { late: { afterMs: plan.afterMs, action: 'dead-letter' } } }, async (rig) => {
    await rig.pool.start(3);
    const dueFrom = Date.now() + plan.prepMs;
    await scheduleDueWindow(rig, plan.count, dueFrom, plan.downMs - 500);
    const { downBeforeDue, backAt } = await outage(rig, dueFrom, plan.downMs);
    const settled = await pollUntil(async () => {
      const stats = await rig.engine.stats(rig.topic).catch(() => undefined);
      const applied = await rig.reader.appliedCount().catch(() => 0);
      return stats !== undefined && stats.pending === 0 && stats.firing === 0 && applied + stats.dead >= rig.expected.size;
    }, SWEEP_MS + 20_000, 200);
    const stats = await rig.engine.stats(rig.topic);
    const dead = await allDead(rig);
    const snapshot = await rig.reader.snapshot();
    const deadIds = new Set(dead.map((letter) => letter.id));
    const fired = dead.filter((letter) => snapshot.deliveries.has(letter.id));
    const notLate = dead.filter((letter) => letter.lastError !== LATE_ERROR || letter.deadAt - rig.expected.get(letter.id)! <= plan.afterMs);
    const lateness = dead.map((letter) => letter.deadAt - rig.expected.get(letter.id)!);
    // The dead-lettered ids are accounted for by the dead letters: the rest must each have fired once.
    const firedExpected = new Map([...rig.expected].filter(([id]) => !deadIds.has(id)));
    const counted = await rig.figures();
    const rest = tally(firedExpected, snapshot);
    const checks: Check[] = [
      { name: 'settled: nothing pending or firing, every timeout fired or dead', ok: settled, detail: `${stats.pending} pending, ${stats.firing} firing, ${stats.dead} dead` },
      { name: 'Redis went down before the first timeout fell due', ok: downBeforeDue },
      { name: 'every dead letter listed (stats.dead)', ok: dead.length === stats.dead, detail: `${dead.length} listed, ${stats.dead} counted` },
      { name: 'some timeouts were late and dead-lettered, some fired', ok: dead.length > 0 && dead.length < plan.count, detail: `${dead.length} of ${plan.count}` },
      { name: 'every dead letter has the late error and was claimed more than afterMs past its due time', ok: notLate.length === 0, detail: notLate.slice(0, 3).map((letter) => `${letter.id}: ${letter.lastError}`).join('; ') },
      { name: 'no dead-lettered timeout ran its handler', ok: fired.length === 0, detail: `${fired.length}` },
    ];
    const result = await rig.result({ maxLost: 0, maxDuplicateEffects: 0 }, checks, [
      `late policy afterMs ${plan.afterMs} ms, dead-letter: ${plan.count} due during ${plan.downMs / 1_000} s down; ${dead.length} dead-lettered as late (${Math.min(...lateness)}-${Math.max(...lateness)} ms past due), ${rest.scheduled - rest.lost} fired, none of the dead ones ran; Redis back at +${backAt - dueFrom} ms from the first due time`,
    ], rest);
    return { ...result, notes: [...result.notes, `all ${counted.scheduled} scheduled: ${counted.lost} without an effect (the dead-lettered ones)`] };
  });
}

/** Merges the phases of one scenario into one result under `name`. */
function merge(name: string, results: readonly ScenarioResult[]): ScenarioResult {
  const failures = results.flatMap((result) => result.failures.map((failure) => `${result.name}: ${failure}`));
  return {
    name,
    scheduled: results.reduce((total, result) => total + result.scheduled, 0),
    lost: results.reduce((total, result) => total + result.lost, 0),
    duplicateEffects: results.reduce((total, result) => total + result.duplicateEffects, 0),
    duplicateDeliveries: results.reduce((total, result) => total + result.duplicateDeliveries, 0),
    maxLatenessMs: Math.max(...results.map((result) => result.maxLatenessMs)),
    boundMs: null,
    pass: failures.length === 0,
    failures,
    notes: results.flatMap((result) => result.notes.map((note) => `${result.name}: ${note}`)),
  };
}

/**
 * 17. Redis down while a backlog falls due, then the catch-up: with a `rateLimit` the backlog fires
 * at the limit (counted per second from the handlers' start records), with a `late` policy what
 * waited too long is dead-lettered and never fired. Nothing lost, nothing with two effects.
 */
export const outageCatchUp: Scenario = {
  name: 'outage-catch-up',
  run: async (context) => merge('outage-catch-up', [await catchUpRun(context), await lateRun(context)]),
};

/**
 * 18. `pause(topic)` under a steady stream of fires: no handler starts after the pause call
 * returned (beyond a claim already on its way); `resume` with `shift: true` moves every pending due
 * time by the pause's length (a sample read with `get`), and without it what fell due fires at
 * once. Nothing lost, nothing with two effects.
 */
export const pauseUnderLoad: Scenario = {
  name: 'pause-under-load',
  run: (context) =>
    withRig('pause-under-load', context, {}, async (rig) => {
      const plan = context.quick
        ? { count: 5_600, durationMs: 14_000, delayMs: [300, 1_500] as [number, number], leadMs: 3_000, pauseMs: 2_000, gapMs: 3_000 }
        : { count: 120_000, durationMs: 60_000, delayMs: [300, 3_000] as [number, number], leadMs: 10_000, pauseMs: 5_000, gapMs: 15_000 };
      /** A claim under way when the pause ran: its reply, the handlers' start and their start record. */
      const claimRoundTripMs = 500;
      const rounds: Array<{ shift: boolean; pauseCallMs: number; latestStartMs: number; startsAfter: number; pausedMs: number; shifted: number; sample: number; wrongShift: string[]; movedBy: number[]; pausedAt: number; resumedAt: number; firingAtResume: number }> = [];

      const round = async (shift: boolean) => {
        const movedBy: number[] = [];
        const called = Date.now();
        await rig.engine.pause(rig.topic);
        const pausedAt = Date.now();
        await sleep(plan.pauseMs);
        const beforeResume = await rig.reader.snapshot();
        const firingAtResume = (await rig.engine.stats(rig.topic)).firing;
        // A sample of the pending timeouts (due after the pause began, so none was claimed before it).
        const candidates = [...rig.expected].filter(([, dueAt]) => dueAt > pausedAt + 200).slice(-200).map(([id]) => id);
        const before = new Map<string, number>();
        for (const id of candidates) {
          const info = await rig.engine.get(rig.topic, id);
          if (info?.state === 'pending') before.set(id, info.dueAt);
        }
        const resuming = Date.now();
        const resumed = await rig.engine.resume(rig.topic, { shift });
        const resumedAt = Date.now();
        // Each slot is paused and resumed by its own script, so each moves by its own pause: the
        // longest (`pausedMs`) less at most the time the pause and resume calls took between slots.
        const spreadMs = pausedAt - called + (resumedAt - resuming);
        const wrongShift: string[] = [];
        for (const [id, dueAt] of before) {
          const info = await rig.engine.get(rig.topic, id);
          const moved = info ? info.dueAt - dueAt : undefined;
          const right = shift ? moved !== undefined && moved <= resumed.pausedMs && moved >= resumed.pausedMs - spreadMs : moved === 0 || info?.state !== 'pending';
          if (!right) wrongShift.push(`${id} moved ${moved} ms (paused ${resumed.pausedMs} ms, slots within ${spreadMs} ms)`);
          else if (shift) movedBy.push(moved!);
        }
        const starts = [...beforeResume.firstDelivery.values()];
        const latestStart = Math.max(0, ...starts.filter((at) => at < resumedAt));
        rounds.push({
          shift,
          pauseCallMs: pausedAt - called,
          latestStartMs: latestStart - pausedAt,
          startsAfter: starts.filter((at) => at > pausedAt + claimRoundTripMs).length,
          pausedMs: resumed.pausedMs,
          shifted: resumed.shifted,
          sample: before.size,
          wrongShift,
          movedBy,
          pausedAt,
          resumedAt,
          firingAtResume,
        });
      };

      await rig.pool.start(3);
      await rig.stream(plan, async () => {
        await sleep(plan.leadMs);
        await round(true);
        await sleep(plan.gapMs);
        await round(false);
      });
      const settled = await rig.settle(plan.delayMs[1] + plan.pauseMs * 2 + SWEEP_MS + 20_000);
      const snapshot = await rig.reader.snapshot();
      const unshifted = rounds.find((r) => !r.shift);
      // Timeouts that fell due during the unshifted pause: how soon after the resume the last of them fired.
      const dueMeanwhile = unshifted ? [...rig.expected].filter(([, dueAt]) => dueAt > unshifted.pausedAt && dueAt < unshifted.resumedAt) : [];
      const caughtUpMs = unshifted ? Math.max(0, ...dueMeanwhile.map(([id]) => (snapshot.effectAt.get(id) ?? Number.POSITIVE_INFINITY) - unshifted.resumedAt)) : 0;
      const checks: Check[] = [
        { name: 'settled: every timeout fired, nothing left', ok: settled },
        ...rounds.map((r) => ({
          name: `pause (resume shift: ${r.shift}): no handler started later than one claim round trip (${claimRoundTripMs} ms) after pause() returned`,
          ok: r.startsAfter === 0,
          detail: `${r.startsAfter} started after it, the latest at +${r.latestStartMs} ms`,
        })),
        ...rounds.map((r) => ({ name: `pause (resume shift: ${r.shift}): nothing firing when resumed`, ok: r.firingAtResume === 0, detail: `${r.firingAtResume}` })),
        ...rounds.map((r) => ({
          name: `resume shift: ${r.shift}: sampled pending due times ${r.shift ? 'moved by the pause length' : 'unchanged'} (${r.sample} sampled)`,
          ok: r.sample >= 20 && r.wrongShift.length === 0,
          detail: `${r.sample} sampled; ${r.wrongShift.slice(0, 3).join(', ')}`,
        })),
        { name: 'timeouts fell due during the unshifted pause', ok: dueMeanwhile.length > 0, detail: `${dueMeanwhile.length}` },
      ];
      return rig.result({ maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0 }, checks, [
        `${Math.round((plan.count / plan.durationMs) * 1_000)} schedules/s over ${plan.durationMs / 1_000} s (due ${plan.delayMs[0]}-${plan.delayMs[1]} ms later), 3 workers; two pauses of ${plan.pauseMs / 1_000} s`,
        ...rounds.map(
          (r) =>
            `pause (then resume shift: ${r.shift}): pause() took ${r.pauseCallMs} ms; latest handler start ${r.latestStartMs} ms after it returned; resume: paused ${r.pausedMs} ms, ${r.shifted} due times shifted, ${r.sample} sampled with get${r.shift ? ` (moved ${Math.min(...r.movedBy)}-${Math.max(...r.movedBy)} ms)` : ' (unchanged)'}`,
        ),
        `after the unshifted pause: ${dueMeanwhile.length} timeouts that fell due meanwhile all had their effect within ${caughtUpMs} ms of resume()`,
      ]);
    }),
};
