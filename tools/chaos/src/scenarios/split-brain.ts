import { forkInNamespace, type PartitionHost, type PartitionNet } from '@durable-timeout/redis-testing';
import type { DurabilityOptions } from '@durable-timeout/core';
import { partitionContext, withPartitionNet } from '../harness/partition-rig.js';
import { SWEEP_MS, pollUntil, sleep, withRig, type Rig, type Scenario } from '../harness/rig.js';
import type { WorkerConnection } from '../worker-protocol.js';
import type { Check } from '../harness/tally.js';
import type { WorkerHandle } from '../harness/worker-pool.js';

/**
 * Schedules are due this long after they are made: most made during the cut fall due after the old
 * primary is demoted (Sentinel: about 10 s after the heal), so they are lost with it where nothing guards them.
 * Quick runs keep only the durable variant, whose delays matter less.
 */
const delaysOf = (quick: boolean): [number, number] => (quick ? [1_000, 4_000] : [1_000, 15_000]);
/** Each producer schedules a batch this often. */
const BATCH_EVERY_MS = 100;
const BATCH = 4;

/** What a producer's schedule calls got. */
interface Produced {
  acknowledged: number;
  unconfirmed: number;
  unavailable: number;
  wrong: string[];
  /** When the first schedule call made at or after a time was acknowledged. */
  acks: { calledAt: number; resolvedAt: number }[];
}

/** A schedule loop through one worker process (its own engine, its own side of the partition). */
function produce(rig: Rig, worker: WorkerHandle, signal: { done: boolean }, delayMs: [number, number]): { tally: Produced; finished: Promise<void> } {
  const tally: Produced = { acknowledged: 0, unconfirmed: 0, unavailable: 0, wrong: [], acks: [] };
  const pending: Promise<void>[] = [];
  const finished = (async () => {
    for (let n = 0; !signal.done; n += 1) {
      const calledAt = Date.now();
      const items = Array.from({ length: BATCH }, (_, i) => ({
        id: `${worker.label}-${n}-${i}`,
        delayMs: Math.round(delayMs[0] + Math.random() * (delayMs[1] - delayMs[0])),
        payload: { n },
      }));
      pending.push(
        worker.schedule(items).then((results) => {
          for (const result of results) {
            if ('dueAt' in result) {
              rig.expected.set(result.id, result.dueAt);
              tally.acknowledged += 1;
              tally.acks.push({ calledAt, resolvedAt: Date.now() });
            } else {
              rig.rejected.set(result.id, result.error);
              if (result.error.startsWith('DurabilityUnconfirmedError')) tally.unconfirmed += 1;
              else if (result.error.startsWith('RedisUnavailableError')) tally.unavailable += 1;
              else tally.wrong.push(result.error.slice(0, 200));
            }
          }
        }, () => undefined),
      );
      await sleep(BATCH_EVERY_MS);
    }
    await Promise.all(pending);
  })();
  return { tally, finished };
}

/** A variant of a split-brain scenario: its name, and the engine's durability option. */
export interface SplitBrainVariant {
  name: string;
  durability?: DurabilityOptions;
}

/** A deployment split in two: what is on the old primary's side, what on the majority's, and how to see the failover. */
export interface SplitDeployment {
  /** How clients reach it (Sentinel or Cluster options). */
  connection: WorkerConnection;
  /** Servers cut off with the isolated clients (the old primary). */
  minority: PartitionHost[];
  /** Servers on the majority side (replicas, sentinels, other masters). */
  majority: PartitionHost[];
  /** Whether the majority has promoted a replica of the isolated primary. */
  promoted(): Promise<boolean>;
  /** Whether the old primary is a replica again (its writes of the cut are gone then). */
  demoted(): Promise<boolean>;
  /** How long the cut lasts (longer than the failover takes): quick and full. */
  cutMs(quick: boolean): number;
  /** The deployment's settings, for the notes. */
  describe: string;
}

/**
 * A split brain: the old primary, with one producer and one worker (one process doing both) on its
 * side, is cut off from the rest of the deployment and the other clients (a second producer and
 * worker) for longer than the failover takes, then healed. The majority promotes a replica; the old
 * primary keeps whatever it accepts until it is demoted after the heal, and its writes of the cut
 * are thrown away then. Counted: acknowledged schedules lost, effects applied twice, reruns after
 * an accepted ack and token regressions (both sides fire what was replicated before the cut),
 * wrong error types, and when the majority's scheduling resumed. With `durability`
 * (`onUnavailable: 'refuse'`) the isolated producer's schedules must be refused
 * (`DurabilityUnconfirmedError`) and none acknowledged may be lost; without it the loss is measured.
 */
export function splitBrainScenario(variant: SplitBrainVariant, deploy: (net: PartitionNet) => Promise<SplitDeployment>): Scenario {
  return {
    name: variant.name,
    run: (context) =>
      withPartitionNet(variant.name, async (net) => {
        const runContext = await partitionContext(net, context);
        const deployment = await deploy(net);
        const minorityHost = net.addHost('clients-minority');
        const majorityHost = net.addHost('clients-majority');
        const place = (label: string): PartitionHost => (label === 'worker-1' ? minorityHost : majorityHost);
        const rigOptions = {
          harnessConnection: deployment.connection,
          workerConnection: deployment.connection,
          worker: variant.durability ? { durability: variant.durability } : {},
          pool: { place: (label: string) => forkInNamespace(net, place(label)) },
        };
        return withRig(variant.name, runContext, rigOptions, async (rig) => {
          const cutMs = deployment.cutMs(context.quick);
          const [minority, majority] = await rig.pool.start(2).catch((error: Error) => {
            throw new Error(`${error.message}\n${rig.pool.logLines.filter((line) => /Error/.test(line)).slice(0, 4).join('\n')}`, { cause: error });
          });
          const signal = { done: false };
          const delayMs = delaysOf(context.quick);
          const producers = [produce(rig, minority!, signal, delayMs), produce(rig, majority!, signal, delayMs)];
          await sleep(context.quick ? 1_500 : 5_000);
          const minoritySide = [...deployment.minority, minorityHost];
          const majoritySide = [...deployment.majority, majorityHost];
          const beforeCut = { acknowledged: producers[0]!.tally.acknowledged };
          net.cut(minoritySide, majoritySide);
          const cutAt = Date.now();
          const promoted = await pollUntil(() => deployment.promoted(), cutMs, 100);
          const promotedAt = Date.now();
          await sleep(Math.max(0, cutAt + cutMs - Date.now()));
          const minorityAckedInCut = producers[0]!.tally.acknowledged - beforeCut.acknowledged;
          net.heal(minoritySide, majoritySide);
          const healedAt = Date.now();
          // The old primary becomes a replica of the new one: its writes of the cut are gone then.
          // A quick durable run need not wait for it: with no replica, the old primary confirms nothing.
          const awaitDemotion = !(context.quick && variant.durability);
          const demoted = awaitDemotion ? await pollUntil(() => deployment.demoted(), 30_000, 100) : true;
          const demotedAt = Date.now();
          await sleep(context.quick ? 0 : 5_000);
          signal.done = true;
          await Promise.all(producers.map((producer) => producer.finished));
          // Lost schedules never get an effect: without durability, settle on nothing left to fire.
          const settled = variant.durability
            ? await rig.settle(delayMs[1] + SWEEP_MS + 20_000)
            : await pollUntil(async () => {
                const stats = await rig.engine.stats(rig.topic).catch(() => undefined);
                return stats !== undefined && stats.pending === 0 && stats.firing === 0;
              }, delayMs[1] + SWEEP_MS + 20_000, 200);
          const figures = await rig.figures();
          const [min, maj] = producers.map((producer) => producer.tally) as [Produced, Produced];
          const firstAckAfterCut = maj.acks.find(({ calledAt }) => calledAt >= cutAt)?.resolvedAt;
          const majorityResumed = firstAckAfterCut === undefined ? 'not before the run ended' : `${firstAckAfterCut - cutAt} ms after the cut`;
          const wrong = [...min.wrong, ...maj.wrong];
          const checks: Check[] = [
            { name: 'settled', ok: settled },
            { name: 'a replica was promoted during the cut', ok: promoted, detail: `not within ${cutMs} ms` },
            { name: 'the old primary was demoted after the heal', ok: demoted, detail: 'still a primary 30 s after the heal' },
            { name: 'no effect applied twice (the fenced, idempotent effect store)', ok: figures.appliedTwice === 0, detail: `${figures.appliedTwice}` },
            { name: 'no error other than RedisUnavailableError / DurabilityUnconfirmedError', ok: wrong.length === 0, detail: wrong.slice(0, 3).join(' | ') },
          ];
          if (variant.durability) {
            checks.push({ name: 'the isolated producer was refused (DurabilityUnconfirmedError)', ok: min.unconfirmed > 0, detail: `${min.unconfirmed} refused` });
          }
          return rig.result(
            // Both sides fire what was replicated before the cut, with tokens of their own: reruns
            // after an accepted ack and token regressions are what a split brain costs; measured.
            { ...(variant.durability ? { maxLost: 0 } : {}), maxTokenRegressions: Number.POSITIVE_INFINITY },
            checks,
            [
              `cut ${cutMs} ms (${deployment.describe}); promotion seen ${promotedAt - cutAt} ms after the cut; healed at +${healedAt - cutAt} ms, ${awaitDemotion ? `old primary demoted ${demotedAt - healedAt} ms after the heal` : 'demotion not awaited (quick)'}`,
              `durability ${variant.durability ? `replicas ${variant.durability.replicas}, ${variant.durability.onUnavailable ?? 'refuse'}` : 'off'}`,
              `isolated producer: ${min.acknowledged} acknowledged (${minorityAckedInCut} during the cut), ${min.unconfirmed} DurabilityUnconfirmedError, ${min.unavailable} RedisUnavailableError, ${min.wrong.length} other`,
              `majority producer: ${maj.acknowledged} acknowledged, ${maj.unconfirmed} DurabilityUnconfirmedError, ${maj.unavailable} RedisUnavailableError, ${maj.wrong.length} other; scheduling resumed ${majorityResumed}`,
              `acknowledged lost ${figures.lost}, effects applied twice ${figures.appliedTwice}, reruns after an accepted ack ${figures.rerunAfterAck}, token regressions ${figures.tokenRegressions}, handlers run twice ${figures.duplicateDeliveries}`,
            ],
            figures,
          );
        });
      }),
  };
}
