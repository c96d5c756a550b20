import type { Check } from '../harness/tally.js';
import { tally } from '../harness/tally.js';
import type { WorkerHandle } from '../harness/worker-pool.js';
import { CHAOS_TOPIC, mean, pollUntil, sleep, SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';
import { occurrenceEffectId } from '../worker-protocol.js';

const LEASE_MS = CHAOS_TOPIC.leaseMs!;
/** The recurring schedule every worker upserts at boot and handles. */
const SCHEDULE = 'every-second';
const EVERY_MS = 1_000;
/** Each occurrence's handler works this long, so the SIGKILL lands while one runs. */
const WORK_MS: [number, number] = [200, 400];
/** Grace of a SIGTERM before the harness SIGKILLs: far above a drain that waits out a running handler. */
const GRACE_MS = 30_000;

/** Which occurrences of an interval schedule the recorded runs account for, over a window of it. */
export interface OccurrenceCoverage {
  /** Occurrences of the window: `from`, `from + everyMs`, ... up to `to`. */
  expected: number;
  /** Occurrences that fired with `missed` 0 (each stands for itself only). */
  onTime: number;
  /** Occurrences that fired late under `catchUp: 'once'`, standing for `missed` later ones too. */
  caughtUp: number;
  /** Occurrences of the window that no run fired because a caught-up one stood for them. */
  coveredByCatchUp: number;
  /** Occurrences of the window no run accounts for (lost). */
  uncovered: number[];
  /** Occurrences of the window two or more runs account for (fired twice, or fired and also stood for). */
  coveredTwice: number[];
  /** Recorded occurrence times off the schedule's grid or before the window (never expected). */
  offGrid: number[];
}

/**
 * Accounts for every occurrence of an `everyMs` schedule from `from` (an occurrence time) to `to`:
 * `fired` maps each occurrence time that ran its effect to its run's `missed` count, and a run of
 * `o` with `missed` m stands for `o`, `o + everyMs`, ..., `o + m * everyMs` (`catchUp: 'once'`).
 * Every occurrence of the window must be accounted for exactly once.
 */
export function occurrenceCoverage(window: { from: number; to: number; everyMs: number }, fired: ReadonlyMap<number, number>): OccurrenceCoverage {
  const { from, to, everyMs } = window;
  const counts = new Map<number, number>();
  for (let at = from; at <= to; at += everyMs) counts.set(at, 0);
  let onTime = 0;
  let caughtUp = 0;
  let coveredByCatchUp = 0;
  const offGrid: number[] = [];
  for (const [at, missed] of [...fired].sort(([a], [b]) => a - b)) {
    if (at < from || (at - from) % everyMs !== 0) {
      offGrid.push(at);
      continue;
    }
    if (at > to) continue;
    if (missed > 0) caughtUp += 1;
    else onTime += 1;
    for (let k = 0; k <= missed; k += 1) {
      const covered = at + k * everyMs;
      const count = counts.get(covered);
      if (count === undefined) break;
      counts.set(covered, count + 1);
      if (k > 0) coveredByCatchUp += 1;
    }
  }
  const uncovered = [...counts].filter(([, count]) => count === 0).map(([at]) => at);
  const coveredTwice = [...counts].filter(([, count]) => count > 1).map(([at]) => at);
  return { expected: counts.size, onTime, caughtUp, coveredByCatchUp, uncovered, coveredTwice, offGrid };
}

/** The occurrence times in `effectIds` of the schedule `name` (`<name>@<occurrenceAt>`), with their values. */
function occurrencesOf(name: string, values: ReadonlyMap<string, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [id, value] of values) if (id.startsWith(`${name}@`)) out.set(Number(id.slice(name.length + 1)), value);
  return out;
}

/**
 * 17. A recurring schedule (`everyMs: 1000`, `catchUp: 'once'`) handled by three worker processes
 * under rolling SIGTERM restarts and one SIGKILL of the worker running an occurrence. Every
 * occurrence of the window fires exactly once, or, when the SIGKILL's lease wait let its successors
 * pass, is stood for by the one late run the catch-up rule makes (`missed` later ones); no
 * occurrence fires twice (0 duplicate effects by occurrence time).
 */
export const cronRestarts: Scenario = {
  name: 'cron-restarts',
  run: (context) => {
    let killArmed = false;
    let killed: { worker: WorkerHandle; effectId: string } | undefined;
    return withRig(
      'cron-restarts',
      context,
      {
        workMs: WORK_MS,
        drainMs: 5_000,
        worker: { reportRuns: true, schedules: { [SCHEDULE]: { everyMs: EVERY_MS, catchUp: 'once' } } },
        pool: {
          onMessage: (message, worker) => {
            // The SIGKILL: the first worker that begins an occurrence once armed, while its handler runs.
            if (killArmed && message.type === 'began' && message.id.startsWith(`${SCHEDULE}@`)) {
              killArmed = false;
              killed = { worker, effectId: message.id };
            }
          },
        },
      },
      async (rig) => {
        const durationMs = context.quick ? 13_000 : 5 * 60_000;
        const restartEveryMs = context.quick ? 3_000 : 10_000;
        const killAtMs = durationMs / 2;
        const nextAts: number[] = [];
        for (const worker of await rig.pool.start(3)) {
          const ready = await readyNextAt(worker);
          if (ready !== undefined) nextAts.push(ready);
        }
        const from = Math.min(...nextAts);
        const started = Date.now();
        const shutdowns: number[] = [];
        let restarts = 0;
        let killedAfterGrace = 0;
        let kills = 0;
        let unackedWhenKilled = 0;
        while (Date.now() - started < durationMs) {
          await sleep(restartEveryMs);
          if (kills === 0 && Date.now() - started >= killAtMs) {
            killArmed = true;
            await pollUntil(() => killed !== undefined, 5 * EVERY_MS, 5);
            if (killed) {
              unackedWhenKilled += (await killed.worker.counters().catch(() => ({ unacked: 1 }))).unacked;
              await rig.pool.kill(killed.worker, true);
              kills += 1;
            }
            continue;
          }
          const victim = rig.pool.pick();
          const replacement = rig.pool.spawn();
          const outcome = await rig.pool.terminate(victim, GRACE_MS);
          if (outcome.killedAfterGrace) killedAfterGrace += 1;
          if (victim.shutdownMs !== undefined) shutdowns.push(victim.shutdownMs);
          await replacement.ready;
          restarts += 1;
        }
        // The window ends with the faults; wait until its last occurrence is accounted for (a caught-up
        // run after the SIGKILL's lease may still be on its way).
        const to = Math.floor(Date.now() / EVERY_MS) * EVERY_MS;
        let coverage = occurrenceCoverage({ from, to, everyMs: EVERY_MS }, new Map());
        const settled = await pollUntil(
          async () => {
            coverage = occurrenceCoverage({ from, to, everyMs: EVERY_MS }, occurrencesOf(SCHEDULE, await rig.reader.missed()));
            return coverage.uncovered.length === 0;
          },
          LEASE_MS + SWEEP_MS + 10_000,
          200,
        );
        // Let a repeat that would come (a duplicate) show before counting.
        await sleep(EVERY_MS);
        const snapshot = await rig.reader.snapshot();
        const missed = occurrencesOf(SCHEDULE, await rig.reader.missed());
        coverage = occurrenceCoverage({ from, to, everyMs: EVERY_MS }, missed);
        // Lateness and early fires are judged for occurrences that fired for themselves only; a caught-up run is late by design.
        const onTime = new Map([...missed].filter(([at, count]) => count === 0 && at >= from && at <= to).map(([at]) => [occurrenceEffectId(SCHEDULE, at), at]));
        const counted = tally(onTime, snapshot);
        const killedAt = killed ? Number(killed.effectId.slice(SCHEDULE.length + 1)) : undefined;
        const killedMissed = killedAt === undefined ? undefined : missed.get(killedAt);
        const maxShutdown = shutdowns.length ? Math.max(...shutdowns) : 0;
        const checks: Check[] = [
          { name: 'every occurrence of the window accounted for', ok: settled && coverage.uncovered.length === 0, detail: `${coverage.uncovered.length} of ${coverage.expected} not fired nor caught up, first ${coverage.uncovered.slice(0, 3).join(', ')}` },
          { name: 'no occurrence accounted for twice', ok: coverage.coveredTwice.length === 0, detail: coverage.coveredTwice.slice(0, 3).join(', ') },
          { name: 'no occurrence off the schedule', ok: coverage.offGrid.length === 0, detail: coverage.offGrid.slice(0, 3).join(', ') },
          { name: 'SIGTERM restarts happened, every drain inside the grace', ok: restarts >= 2 && killedAfterGrace === 0, detail: `${restarts} restarts, ${killedAfterGrace} killed after the grace` },
          { name: 'a worker was SIGKILLed while it ran an occurrence', ok: kills === 1 && killed !== undefined, detail: `${kills} kills` },
          {
            name: "the SIGKILLed occurrence fired late once, standing for the ones its lease wait let pass ('once')",
            ok: killedMissed !== undefined && killedMissed >= 1,
            detail: killedMissed === undefined ? 'never fired' : `missed ${killedMissed}`,
          },
          {
            name: 'repeat deliveries only of runs not yet acked in the SIGKILLed worker',
            ok: counted.duplicateDeliveries <= unackedWhenKilled,
            detail: `${counted.duplicateDeliveries} repeated, ${unackedWhenKilled} unacked when killed`,
          },
        ];
        return rig.result(
          { maxDuplicateEffects: 0, boundMs: EVERY_MS + WORK_MS[1] + SWEEP_MS },
          checks,
          [
            `everyMs ${EVERY_MS}, catchUp 'once', 3 workers; window ${(to - from) / 1000} s: ${coverage.expected} occurrences, ${coverage.onTime} fired on time, ${coverage.caughtUp} fired late once for ${coverage.coveredByCatchUp} missed ones`,
            `${restarts} SIGTERM restarts, one every ${restartEveryMs} ms (shutdown max ${maxShutdown} ms, mean ${mean(shutdowns)} ms); 1 SIGKILL mid-occurrence (lease ${LEASE_MS} ms), missed ${killedMissed ?? 'n/a'}`,
          ],
          // Scheduled and lost count occurrences of the window (tally counts duplicates over every recorded occurrence).
          { ...counted, scheduled: coverage.expected, lost: coverage.uncovered.length },
        );
      },
    );
  },
};

/** The `nextAt` of the schedule a worker reported in its ready message. */
function readyNextAt(worker: WorkerHandle): Promise<number | undefined> {
  return worker.ready.then(() => worker.readyNextAt?.[SCHEDULE]);
}
