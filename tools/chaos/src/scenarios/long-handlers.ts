import type { Check } from '../harness/tally.js';
import { SWEEP_MS, sleep, withRig, type Scenario } from '../harness/rig.js';

/** A short lease, so that handlers of 5 x the lease last seconds. */
const LEASE_MS = 1_000;
/** Every handler runs this long: five leases, kept only by lease renewal. */
const HANDLER_MS = 5 * LEASE_MS;

/**
 * 16. Handlers that run 5 x leaseMs, under SIGKILLs and rolling SIGTERM restarts (drain longer
 * than a handler). Their leases are renewed while they run, so a handler that finishes is never
 * delivered twice: the only repeat deliveries allowed are of handlers that were running in a
 * worker when it was SIGKILLed (their leases end leaseMs after their last renewal, then they fire
 * again). Nothing lost, no effect applied twice.
 */
export const longHandlers: Scenario = {
  name: 'long-handlers',
  run: (context) =>
    withRig('long-handlers', context, { topicOptions: { leaseMs: LEASE_MS, concurrency: 256 }, workMs: [HANDLER_MS, HANDLER_MS], drainMs: 4 * HANDLER_MS }, async (rig) => {
      const plan = context.quick
        ? { count: 300, durationMs: 6_000, delayMs: [100, 1_000] as [number, number] }
        : { count: 3_000, durationMs: 40_000, delayMs: [100, 3_000] as [number, number] };
      const everyMs = context.quick ? 2_000 : 5_000;
      await rig.pool.start(3);
      let kills = 0;
      let restarts = 0;
      // Handlers running in the workers that were SIGKILLed: the only runs that may be repeated.
      let runningWhenKilled = 0;
      // One SIGKILL, then one SIGTERM restart (quick); alternating for the length of the stream (full).
      await rig.stream(plan, async (signal) => {
        for (let round = 0; round < 2 || (!context.quick && !signal.done); round += 1) {
          await sleep(everyMs);
          const victim = rig.pool.pick();
          if (round % 2 === 0) {
            runningWhenKilled += (await victim.counters()).inFlight;
            await rig.pool.kill(victim, true);
            kills += 1;
          } else {
            const replacement = rig.pool.spawn();
            await rig.pool.terminate(victim, 30_000);
            await replacement.ready;
            restarts += 1;
          }
        }
      });
      const settled = await rig.settle(plan.delayMs[1] + HANDLER_MS + LEASE_MS + SWEEP_MS + 20_000);
      const figures = await rig.figures();
      const checks: Check[] = [
        { name: 'settled', ok: settled },
        { name: 'workers SIGKILLed and restarted', ok: kills >= 1 && restarts >= 1, detail: `${kills} killed, ${restarts} restarted` },
        {
          name: 'repeat deliveries only of handlers running in a SIGKILLed worker',
          ok: figures.duplicateDeliveries <= runningWhenKilled,
          detail: `${figures.duplicateDeliveries} repeated, ${runningWhenKilled} were running in killed workers`,
        },
      ];
      return rig.result(
        // A handler starts late by up to a lease and a sweep when its worker was killed, then runs HANDLER_MS.
        { maxLost: 0, maxDuplicateEffects: 0, boundMs: HANDLER_MS + 2 * LEASE_MS + SWEEP_MS + 1_000 },
        checks,
        [
          `handlers of ${HANDLER_MS} ms (5 x leaseMs ${LEASE_MS}); ${kills} SIGKILLs and ${restarts} SIGTERM restarts, one every ${everyMs} ms`,
          `${figures.duplicateDeliveries} repeat deliveries, all of the ${runningWhenKilled} handlers running in SIGKILLed workers at most`,
        ],
        figures,
      );
    }),
};
