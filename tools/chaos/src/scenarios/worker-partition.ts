import { forkInNamespace } from '@durable-timeout/redis-testing';
import { partitionContext, withPartitionNet } from '../harness/partition-rig.js';
import { SWEEP_MS, sleep, withRig, type Scenario } from '../harness/rig.js';
import type { Check } from '../harness/tally.js';

/** A short lease, so that a cut of 3 x the lease lasts seconds. */
const LEASE_MS = 1_000;
/** How long one cut lasts. */
const CUT_MS = 3 * LEASE_MS;
/** Handlers outlast the lease (kept by renewal), so a cut always finds some running. */
const WORK_MS: [number, number] = [1_500, 2_500];

/**
 * A worker partitioned from Redis while its long handlers run. Two workers, each in its own
 * network namespace, Redis in a third, the effects store in a fourth. Mid-stream the first worker
 * is cut off from Redis (not from the effects store) for 3 x leaseMs, then healed; quick: once,
 * full: three times. Its leases run out, the other worker takes those timeouts over, and the cut
 * worker, still running its handlers, learns it lost them: its signals are aborted with
 * `LeaseLostError`, its late acks are refused as stale, its late effect writes are refused by the
 * fencing token (or absorbed as repeats). Required: nothing lost, no effect applied twice, no
 * rerun after an accepted ack, no token regression, no abort reason other than `LeaseLostError`,
 * and the cut worker told of its lost leases.
 */
export const workerPartition: Scenario = {
  name: 'worker-partition',
  run: (context) =>
    withPartitionNet('worker-partition', async (net) => {
      const runContext = await partitionContext(net, context);
      const redisHost = net.addHost('redis');
      const cutHost = net.addHost('worker-cut');
      const otherHost = net.addHost('worker-other');
      const redis = await net.startRedis(redisHost);
      const rigOptions = {
        harnessConnection: redis.url,
        workerConnection: redis.url,
        topicOptions: { leaseMs: LEASE_MS, concurrency: 256 },
        workMs: WORK_MS,
        drainMs: 2 * WORK_MS[1],
        pool: { place: (label: string) => forkInNamespace(net, label === 'worker-1' ? cutHost : otherHost) },
      };
      return withRig('worker-partition', runContext, rigOptions, async (rig) => {
        const plan = context.quick
          ? { count: 300, durationMs: 4_000, delayMs: [100, 1_000] as [number, number] }
          : { count: 3_000, durationMs: 30_000, delayMs: [100, 3_000] as [number, number] };
        const cuts = context.quick ? 1 : 3;
        const [cutWorker] = await rig.pool.start(2);
        let runningAtCuts = 0;
        await rig.stream(plan, async () => {
          for (let round = 0; round < cuts; round += 1) {
            await sleep(context.quick ? 1_500 : 6_000);
            runningAtCuts += (await cutWorker!.counters()).unacked;
            net.cut([cutHost], [redisHost]);
            await sleep(CUT_MS);
            net.heal([cutHost], [redisHost]);
          }
        });
        const settled = await rig.settle(plan.delayMs[1] + CUT_MS + LEASE_MS + SWEEP_MS + WORK_MS[1] + 20_000);
        const figures = await rig.figures();
        const cut = await cutWorker!.counters();
        const all = await rig.pool.counters();
        const leaseLost = cut.leaseLostStale + cut.leaseLostUnrenewed;
        // What a store without the fence and the idempotence check would have done with the same writes.
        const unguardedTwice = figures.staleWritesRefused + figures.absorbedRepeats;
        const checks: Check[] = [
          { name: 'settled', ok: settled },
          { name: 'the cut found handlers running', ok: runningAtCuts > 0, detail: `${runningAtCuts} running at the cuts` },
          { name: 'the cut worker learnt of its lost leases (LeaseLostError)', ok: leaseLost > 0, detail: `${leaseLost} signals aborted with LeaseLostError` },
          { name: 'no abort reason other than LeaseLostError', ok: all.abortedOther === 0, detail: `${all.abortedOther} aborted otherwise` },
          { name: 'no rerun after an accepted ack', ok: figures.rerunAfterAck === 0, detail: `${figures.rerunAfterAck}` },
        ];
        return rig.result(
          // A timeout running in the cut worker: its lease ends LEASE_MS after the cut at most, the
          // other worker claims it within a sweep, then runs the handler again in full.
          { maxLost: 0, maxDuplicateEffects: 0, boundMs: WORK_MS[1] + LEASE_MS + SWEEP_MS + WORK_MS[1] + 1_000 },
          checks,
          [
            `${cuts} cut(s) of ${CUT_MS} ms (3 x leaseMs ${LEASE_MS}) of one worker from Redis; handlers of ${WORK_MS[0]}-${WORK_MS[1]} ms; ${runningAtCuts} runs in the cut worker at the cuts`,
            `handlers run twice ${figures.duplicateDeliveries}; cut worker: signals aborted with LeaseLostError ${leaseLost} (renewal refused as stale ${cut.leaseLostStale}, lease ended unrenewed ${cut.leaseLostUnrenewed}), acks refused as stale ${cut.stale}`,
            `fenced effect store: applied twice ${figures.appliedTwice}, late writes refused by the token ${figures.staleWritesRefused}, repeats absorbed ${figures.absorbedRepeats}; a store that checks neither would have applied ${unguardedTwice} effects twice`,
          ],
          figures,
        );
      });
    }),
};
