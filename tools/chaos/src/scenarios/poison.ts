import type { JsonValue } from '@durable-timeout/core';
import { CHAOS_TOPIC, pollUntil, SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';
import type { ScheduleItem } from '../worker-protocol.js';

const MAX_ATTEMPTS = 4;
const BACKOFF = { baseMs: 200, capMs: 800 };
/** A retry may start this much after its backoff delay: the wake-up, the claim, the handler start. */
const RETRY_SLACK_MS = 1_000;

/** Largest delay the backoff allows after the failure of attempt `attempt`. */
export function backoffCeiling(attempt: number, backoff: { baseMs: number; capMs: number }): number {
  return Math.min(backoff.capMs, backoff.baseMs * 2 ** (attempt - 1));
}

/**
 * Compares each retry of a traced id with the documented backoff window: after the failure of
 * attempt n the next run starts between d/2 and d after it, d = min(cap, base * 2^(n-1)) (equal
 * jitter). The failure is logged just before the handler throws, so the measured gap includes the
 * failure record, the wake-up and the claim: it can only be longer than the delay, never shorter.
 *
 * A failure whose record the library never stored (no `stored` entry before the next start: the
 * worker exited, as the exiting handlers of this scenario make it, while the record was on its
 * way) is retried after the backoff counted from its lease expiry, and a retry whose delivery was
 * lost with an exiting worker before it started (the next start carries a later attempt number
 * than n + 1) comes a lease later: their gaps are counted in `unstored`, not measured. Returns the
 * smallest margin above d/2 and the largest overshoot past d (ms), both null when no stored failure
 * was retried.
 */
export function backoffMargins(
  log: ReadonlyArray<{ kind: 'start' | 'fail' | 'stored'; at: number; attempt?: number }>,
  backoff: { baseMs: number; capMs: number },
): { early: number | null; late: number | null; unstored: number } {
  let early: number | null = null;
  let late: number | null = null;
  let unstored = 0;
  let failures = 0;
  let attempt: number | undefined;
  for (let i = 0; i < log.length; i += 1) {
    const entry = log[i]!;
    if (entry.kind === 'start') attempt = entry.attempt;
    if (entry.kind !== 'fail') continue;
    failures += 1;
    const failed = attempt ?? failures;
    const nextIndex = log.findIndex((later, j) => j > i && later.kind === 'start');
    if (nextIndex < 0) continue;
    const next = log[nextIndex]!;
    if (!log.slice(i + 1, nextIndex).some((between) => between.kind === 'stored') || (next.attempt !== undefined && next.attempt !== failed + 1)) {
      unstored += 1;
      continue;
    }
    const gap = next.at - entry.at;
    const ceiling = backoffCeiling(failed, backoff);
    early = Math.min(early ?? Number.POSITIVE_INFINITY, gap - ceiling / 2);
    late = Math.max(late ?? Number.NEGATIVE_INFINITY, gap - ceiling);
  }
  return { early, late, unstored };
}

/**
 * How many times the library delivered an id that ended in the dead letters after `deadAttempts`
 * attempts, from its run log: every handler start, plus every attempt number up to `deadAttempts`
 * that no start carries. That one was claimed by a worker that exited (an exit-once handler of
 * this scenario) before the handler's start was recorded, while its claim was coming back or its
 * handler was on its way to the effects server; its lease expired, which counts as a failed attempt.
 */
export function deliveriesOf(log: ReadonlyArray<{ kind: 'start' | 'fail' | 'stored'; attempt?: number }>, deadAttempts: number): { starts: number; unstarted: number } {
  const starts = log.filter((entry) => entry.kind === 'start');
  const started = new Set(starts.map((entry) => entry.attempt));
  let unstarted = 0;
  for (let attempt = 1; attempt <= deadAttempts; attempt += 1) if (!started.has(attempt)) unstarted += 1;
  return { starts: starts.length, unstarted };
}

/**
 * 9. Poison handlers: 1% throw once, a few exit the process mid-handler, a few always throw. The
 * always-failing ones get exactly `maxAttempts` attempts with backoff within bounds, then land in the
 * dead letters; no healthy timeout is dead-lettered; replaying the dead letters (after the handler
 * is fixed) fires them.
 */
export const poison: Scenario = {
  name: 'poison',
  run: (context) =>
    withRig(
      'poison',
      context,
      { topicOptions: { maxAttempts: MAX_ATTEMPTS, backoff: BACKOFF }, pool: { respawn: true } },
      async (rig) => {
        const count = context.quick ? 500 : 5_000;
        const poisonCount = context.quick ? 3 : 10;
        const exitCount = 3;
        const plan = { count, durationMs: context.quick ? 5_000 : 40_000, delayMs: [100, 2_000] as [number, number] };
        await rig.pool.start(3);
        const poisonIds = Array.from({ length: poisonCount }, (_, i) => `poison-${i}`);
        const exitIds = Array.from({ length: exitCount }, (_, i) => `exit-${i}`);
        // Poison ids are scheduled outside `expected`: they fire only after the replay, so their lateness is not a figure.
        const poisonItems: ScheduleItem[] = poisonIds.map((id) => ({ id, delayMs: 500, payload: { chaos: 'fail-until-healed' } }));
        const poisonDue = new Map<string, number>();
        for (const item of poisonItems) {
          const result = await rig.engine.schedule(rig.topic, item.id, { delayMs: item.delayMs!, payload: item.payload });
          poisonDue.set(item.id, result.dueAt);
        }
        await rig.schedule(exitIds.map((id, i) => ({ id, delayMs: 1_000 + i * 500, payload: { chaos: 'exit-once' } })));
        await rig.stream({ ...plan, payload: (i): JsonValue => (i % 100 === 7 ? { chaos: 'fail-once' } : { n: i }) });

        const settled = await rig.settle(plan.delayMs[1] + CHAOS_TOPIC.leaseMs! + SWEEP_MS + 20_000, { dead: poisonCount });
        const snapshot = await rig.reader.snapshot();
        const dead = await rig.engine.listDead(rig.topic, { limit: 1_000 });
        const deadIds = new Set(dead.map((letter) => letter.id));
        // Deliveries, from the run log: a delivery whose worker exited before its handler recorded the
        // failure still counts (its lease expired: a failed attempt), so it is counted among the starts;
        // one whose worker exited before the start was recorded is counted by its attempt number.
        const counted = await Promise.all(
          poisonIds.map(async (id) => deliveriesOf(await rig.reader.runLog(id), dead.find((letter) => letter.id === id)?.attempts ?? 0)),
        );
        const deliveries = counted.map(({ starts, unstarted }) => starts + unstarted);
        const unstartedDeliveries = counted.reduce((sum, { unstarted }) => sum + unstarted, 0);
        const exactAttempts = poisonIds.every((id, i) => deliveries[i] === MAX_ATTEMPTS && dead.find((letter) => letter.id === id)?.attempts === MAX_ATTEMPTS);
        const healthyDead = [...deadIds].filter((id) => !poisonDue.has(id));
        let worstOvershoot = Number.NEGATIVE_INFINITY;
        let smallestMargin = Number.POSITIVE_INFINITY;
        let unstoredFailures = 0;
        for (const id of poisonIds) {
          const { early, late, unstored } = backoffMargins(await rig.reader.runLog(id), BACKOFF);
          if (late !== null) worstOvershoot = Math.max(worstOvershoot, late);
          if (early !== null) smallestMargin = Math.min(smallestMargin, early);
          unstoredFailures += unstored;
        }
        const failOnceIds = [...rig.expected.keys()].filter((id) => Number(id.slice(2)) % 100 === 7 && id.startsWith('t-'));
        const retriedOnce = failOnceIds.every((id) => snapshot.failures.get(id) === 1 && snapshot.effectAt.has(id));

        await rig.reader.heal();
        const replayed = await rig.engine.replayDead(rig.topic);
        const replayedFired = await pollUntil(async () => {
          const after = await rig.reader.snapshot();
          return poisonIds.every((id) => after.effectAt.has(id));
        }, SWEEP_MS + 15_000, 100);
        const settledAfter = await rig.settle(SWEEP_MS + 15_000);

        const checks: Check[] = [
          { name: 'settled with the poison ids dead', ok: settled },
          {
            name: `always-failing timeouts got exactly maxAttempts (${MAX_ATTEMPTS}) deliveries, then the dead letters`,
            ok: exactAttempts && poisonIds.every((id) => deadIds.has(id)),
            detail: `deliveries ${deliveries.join(', ')}; dead attempts ${poisonIds.map((id) => dead.find((letter) => letter.id === id)?.attempts).join(', ')}`,
          },
          { name: 'no healthy timeout dead-lettered', ok: healthyDead.length === 0, detail: healthyDead.slice(0, 5).join(', ') },
          { name: `no retry before half its backoff delay (equal jitter)`, ok: Number.isFinite(smallestMargin) && smallestMargin >= 0, detail: `smallest margin ${smallestMargin} ms` },
          { name: `retries within the backoff ceiling + ${RETRY_SLACK_MS} ms`, ok: Number.isFinite(worstOvershoot) && worstOvershoot <= RETRY_SLACK_MS, detail: `worst ${worstOvershoot} ms past the ceiling` },
          { name: 'the 1% that throw once fired on their second attempt', ok: failOnceIds.length > 0 && retriedOnce, detail: `${failOnceIds.length} ids` },
          { name: 'workers that exited mid-handler were replaced', ok: rig.pool.respawns >= exitCount, detail: `${rig.pool.respawns}` },
          { name: 'replay from the dead letters fired every poison timeout', ok: replayed === poisonCount && replayedFired && settledAfter, detail: `${replayed} replayed` },
        ];
        return rig.result(
          { maxLost: 0, maxDuplicateEffects: 0, boundMs: CHAOS_TOPIC.leaseMs! + SWEEP_MS + BACKOFF.capMs + 1_000 },
          checks,
          [
            `${poisonCount} always failing -> dead after ${MAX_ATTEMPTS} attempts; ${failOnceIds.length} fail once; ${exitCount} exit the worker (${rig.pool.respawns} respawns)`,
            `backoff base ${BACKOFF.baseMs} ms cap ${BACKOFF.capMs} ms: retry gaps vs their window [d/2, d]: closest to d/2 ${smallestMargin} ms above it, closest to d ${-worstOvershoot} ms below it (negative: past d)`,
            `${unstoredFailures} poison retries not measured against the backoff: the failure record, or the retry's delivery, was lost with an exiting worker (retried after the lease ended)`,
            `${unstartedDeliveries} poison deliveries lost with an exiting worker before their handler's start was recorded (counted by attempt number)`,
          ],
        );
      },
    ),
};
