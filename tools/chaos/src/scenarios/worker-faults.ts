import type { Check } from '../harness/tally.js';
import { CHAOS_TOPIC, mean, pollUntil, sleep, SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';
import type { WorkerHandle } from '../harness/worker-pool.js';

const LEASE_MS = CHAOS_TOPIC.leaseMs!;

/** 1. Thousands of timeouts over a minute, no fault: nothing lost, nothing delivered twice. */
export const baseline: Scenario = {
  name: 'baseline',
  run: (context) =>
    withRig('baseline', context, {}, async (rig) => {
      const plan = context.quick
        ? { count: 500, durationMs: 5_000, delayMs: [100, 2_000] as [number, number] }
        : { count: 5_000, durationMs: 60_000, delayMs: [100, 5_000] as [number, number] };
      await rig.pool.start(3);
      await rig.stream(plan);
      const settled = await rig.settle(plan.delayMs[1] + 20_000);
      return rig.result(
        { maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 1_000 },
        [{ name: 'settled (every effect in, nothing pending or firing)', ok: settled }],
      );
    }),
};

/** 2. SIGKILL a random worker every few seconds while timeouts fire; a replacement starts each time. */
export const workerSigkill: Scenario = {
  name: 'worker-sigkill',
  run: (context) =>
    withRig('worker-sigkill', context, { workMs: [20, 200] }, async (rig) => {
      const plan = context.quick
        ? { count: 600, durationMs: 8_000, delayMs: [100, 1_500] as [number, number] }
        : { count: 6_000, durationMs: 60_000, delayMs: [100, 3_000] as [number, number] };
      const everyMs = context.quick ? 1_500 : 3_000;
      await rig.pool.start(4);
      let kills = 0;
      await rig.stream(plan, async (signal) => {
        while (!signal.done) {
          await sleep(everyMs);
          if (signal.done) break;
          await rig.pool.kill(rig.pool.pick(), true);
          kills += 1;
        }
      });
      const settled = await rig.settle(plan.delayMs[1] + LEASE_MS + SWEEP_MS + 20_000);
      return rig.result(
        { maxLost: 0, maxDuplicateEffects: 0, boundMs: LEASE_MS + SWEEP_MS + 1_000 },
        [
          { name: 'settled', ok: settled },
          { name: 'workers killed', ok: kills >= 2, detail: `${kills}` },
        ],
        [`${kills} workers SIGKILLed, one every ${everyMs} ms`],
      );
    }),
};

/**
 * 3. Rolling restarts with SIGTERM (the worker stops its engine with drain): nothing lost, nothing
 * delivered twice, every shutdown well inside a 30 s grace period. Then a handler that outlives the
 * grace period: the worker is SIGKILLed at the end of the grace and the lease brings the timeout back.
 */
export const rollingRestart: Scenario = {
  name: 'rolling-restart',
  run: (context) => {
    const hanging = new Map<string, WorkerHandle>();
    return withRig(
      'rolling-restart',
      context,
      { drainMs: 5_000, worker: { reportRuns: true }, pool: { onMessage: (message, worker) => message.type === 'began' && message.id.startsWith('hang-') && hanging.set(message.id, worker) } },
      async (rig) => {
        const graceMs = 30_000;
        const plan = context.quick
          ? { count: 600, durationMs: 8_000, delayMs: [500, 4_000] as [number, number] }
          : { count: 6_000, durationMs: 60_000, delayMs: [500, 10_000] as [number, number] };
        const everyMs = context.quick ? 2_000 : 4_000;
        await rig.pool.start(3);
        const shutdowns: number[] = [];
        let killedAfterGrace = 0;
        await rig.stream(plan, async (signal) => {
          while (!signal.done) {
            await sleep(everyMs);
            if (signal.done) break;
            const victim = rig.pool.pick();
            const replacement = rig.pool.spawn();
            const outcome = await rig.pool.terminate(victim, graceMs);
            if (outcome.killedAfterGrace) killedAfterGrace += 1;
            if (victim.shutdownMs !== undefined) shutdowns.push(victim.shutdownMs);
            await replacement.ready;
          }
        });
        const settled = await rig.settle(plan.delayMs[1] + SWEEP_MS + 20_000);
        const figures = await rig.figures();

        // The handler that outlives the grace period: short grace (2 s) against a 5 s drain.
        const hangId = 'hang-0';
        const shortGraceMs = 2_000;
        await rig.engine.schedule(rig.topic, hangId, { delayMs: 0, payload: { chaos: 'hang-once', sleepMs: 15_000 } });
        const began = await pollUntil(() => hanging.has(hangId), 10_000);
        const holder = hanging.get(hangId);
        const fellBack = holder ? (await rig.pool.terminate(holder, shortGraceMs)).killedAfterGrace : false;
        rig.pool.spawn();
        const started = Date.now();
        const recovered = await pollUntil(async () => (await rig.reader.snapshot()).effectAt.has(hangId), LEASE_MS + SWEEP_MS + 15_000, 100);
        const recoveryMs = Date.now() - started;

        const maxShutdown = shutdowns.length ? Math.max(...shutdowns) : 0;
        const checks: Check[] = [
          { name: 'settled', ok: settled },
          { name: 'rolling restarts happened', ok: shutdowns.length >= 2, detail: `${shutdowns.length}` },
          { name: 'every shutdown well inside the 30 s grace (< 10 s)', ok: maxShutdown < 10_000 && killedAfterGrace === 0, detail: `max ${maxShutdown} ms, ${killedAfterGrace} killed` },
          { name: 'hanging handler started', ok: began },
          { name: 'hanging handler outlived the grace and was SIGKILLed', ok: fellBack },
          { name: 'hanging timeout fired again after its lease', ok: recovered, detail: `${recoveryMs} ms after the kill` },
        ];
        return rig.result(
          { maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 1_000 },
          checks,
          [
            `${shutdowns.length} SIGTERM restarts, shutdown max ${maxShutdown} ms, mean ${mean(shutdowns)} ms (drain 5 s, grace 30 s)`,
            `handler outliving a ${shortGraceMs} ms grace: effect ${recovered ? `${recoveryMs} ms` : 'never'} after SIGKILL (lease ${LEASE_MS} ms)`,
          ],
          figures,
        );
      },
    );
  },
};

/** 6. A worker frozen (SIGSTOP) mid-handler for twice the lease: its late write and ack are refused. */
export const workerPause: Scenario = {
  name: 'worker-pause',
  run: (context) => {
    const runs = new Map<string, number>();
    return withRig(
      'worker-pause',
      context,
      { workMs: [0, 0], worker: { reportRuns: true }, pool: { onMessage: (message) => message.type === 'began' && runs.set(message.id, (runs.get(message.id) ?? 0) + 1) } },
      async (rig) => {
        const count = context.quick ? 10 : 50;
        const [frozen] = await rig.pool.start(1);
        await rig.schedule(Array.from({ length: count }, (_, i) => ({ id: `p-${i}`, delayMs: 0, payload: { chaos: 'hang-once', sleepMs: 1_000 } })));
        const allBegan = await pollUntil(() => runs.size >= count, 10_000);
        frozen!.pause();
        const frozenAt = Date.now();
        await rig.pool.start(1);
        await sleep(Math.max(0, 2 * LEASE_MS - (Date.now() - frozenAt)));
        frozen!.resume();
        const settled = await rig.settle(LEASE_MS + SWEEP_MS + 15_000);
        // The frozen worker's handlers finish after it resumes; wait for each one's ack outcome.
        let frozenCounters = await frozen!.counters();
        await pollUntil(async () => {
          frozenCounters = await frozen!.counters();
          return frozenCounters.stale + frozenCounters.fired >= count;
        }, 10_000, 100);
        const figures = await rig.figures();
        return rig.result(
          { maxLost: 0, maxDuplicateEffects: 0, boundMs: 2 * LEASE_MS + SWEEP_MS + 1_000 },
          [
            { name: 'settled', ok: settled },
            { name: 'every timeout was running in the frozen worker', ok: allBegan, detail: `${runs.size}/${count}` },
            { name: 'the frozen worker\'s late acks were refused (stale)', ok: frozenCounters.stale >= 1, detail: `${frozenCounters.stale} stale` },
            { name: 'its late effect writes were refused by the token fence', ok: figures.staleWritesRefused >= 1, detail: `${figures.staleWritesRefused}` },
            { name: 'no late ack of the frozen worker was accepted', ok: frozenCounters.fired === 0, detail: `${frozenCounters.fired} accepted` },
          ],
          [`frozen ${2 * LEASE_MS} ms: ${frozenCounters.stale} late acks refused, ${figures.staleWritesRefused} late writes fenced off`],
          figures,
        );
      },
    );
  },
};

/** 7. Application clocks skewed by minutes (schedules made by the skewed workers): no early fire, baseline lateness. */
export const clockSkew: Scenario = {
  name: 'clock-skew',
  run: (context) =>
    withRig('clock-skew', context, {}, async (rig) => {
      const skews = [-5 * 60_000, 5 * 60_000, 0];
      const workers = await rig.pool.start(3, skews.map((clockSkewMs) => ({ clockSkewMs })));
      const count = context.quick ? 450 : 3_000;
      const rounds = context.quick ? 5 : 30;
      const maxDelay = 3_000;
      let sent = 0;
      for (let round = 0; round < rounds; round += 1) {
        await Promise.all(
          workers.map(async (worker, w) => {
            const items = Array.from({ length: Math.ceil(count / rounds / workers.length) }, () => ({
              id: `s${w}-${sent++}`,
              delayMs: Math.round(100 + Math.random() * (maxDelay - 100)),
              payload: { skewMs: skews[w]! },
            }));
            for (const result of await worker.schedule(items)) {
              if ('dueAt' in result) rig.expected.set(result.id, result.dueAt);
              else rig.rejected.set(result.id, result.error);
            }
          }),
        );
        await sleep(1_000);
      }
      const settled = await rig.settle(maxDelay + 20_000);
      return rig.result(
        { maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: SWEEP_MS + 1_000 },
        [
          { name: 'settled', ok: settled },
          { name: 'every schedule acknowledged', ok: rig.rejected.size === 0, detail: [...rig.rejected.values()][0] },
        ],
        [`worker clocks skewed by ${skews.map((skew) => `${skew / 60_000} min`).join(', ')}; schedules made by the skewed workers`],
      );
    }),
};
