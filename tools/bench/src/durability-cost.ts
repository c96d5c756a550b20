import { DurableTimeouts, type DurabilityOptions } from '@durable-timeout/core';
import { HarnessError, RedisServer, waitUntil } from '@durable-timeout/redis-testing';
import { BENCH_TOPIC, engineOptions } from './systems/engine.system.js';
import { inPool } from './systems/system.js';
import { percentile } from './stats.js';
import { PAYLOAD, timeoutId } from './workloads.js';

/** Every timeout is due this far ahead: nothing fires while scheduling is measured. */
const AHEAD_MS = 3_600_000;

/** The option as measured: one replica, the default timeout. */
export const MEASURED_DURABILITY: DurabilityOptions = { replicas: 1, timeoutMs: 500 };

/** One load level, measured without and with the option. */
export interface DurabilityFigure {
  /** `schedule()` calls in flight at once. */
  inFlight: number;
  count: number;
  off: ScheduleCost;
  on: ScheduleCost;
}

/** Rate and per-call latency of `schedule()` at one setting. */
export interface ScheduleCost {
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  /** WAIT commands the primary ran (0 without the option). */
  waits: number;
}

/** `count` schedules with `inFlight` in flight on a fresh engine; each call timed from its start to its resolution. */
async function measure(port: number, prefix: string, count: number, inFlight: number, durability?: DurabilityOptions): Promise<Omit<ScheduleCost, 'waits'>> {
  const timeouts = new DurableTimeouts({ ...engineOptions({ kind: 'single', host: '127.0.0.1', port }, prefix), ...(durability ? { durability } : {}) });
  try {
    await timeouts.schedule(BENCH_TOPIC, 'warm-up', { delayMs: AHEAD_MS });
    const latencies = new Float64Array(count);
    const started = performance.now();
    await inPool(count, inFlight, async (i) => {
      const callStarted = performance.now();
      await timeouts.schedule(BENCH_TOPIC, timeoutId(i), { delayMs: AHEAD_MS, payload: PAYLOAD });
      latencies[i] = performance.now() - callStarted;
    });
    const elapsedMs = performance.now() - started;
    const sorted = Array.from(latencies.sort());
    return { perSec: (count * 1000) / elapsedMs, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
  } finally {
    await timeouts.stop({ drainMs: 0 });
  }
}

/** The round with the median rate (of an odd number of rounds, alternated without and with the option against machine noise). */
function medianRound(rounds: readonly ScheduleCost[]): ScheduleCost {
  return [...rounds].sort((a, b) => a.perSec - b.perSec)[Math.floor(rounds.length / 2)]!;
}

/**
 * The cost of `durability`: a fresh primary with one replica (both local, no persistence), and
 * `schedule()` at three load levels (1, 50 and 1,000 calls in flight), each level measured
 * without the option and with `{ replicas: 1 }` one right after the other, three times (once with
 * `--quick`); each figure is the round with the median rate, so both come from the same machine state.
 */
export async function measureDurabilityCost(quick: boolean, nextPrefix: () => string, log: (line: string) => void): Promise<DurabilityFigure[]> {
  const primary = await RedisServer.start();
  const replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  try {
    const probe = replica.client();
    await waitUntil(async () => /master_link_status:up/.test(await probe.info('replication')), 20_000, 'the replica to sync');
    const admin = primary.client();
    const waitCalls = async () => Number(/cmdstat_wait:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const levels = [
      { inFlight: 1, count: quick ? 500 : 3_000 },
      { inFlight: 50, count: quick ? 5_000 : 20_000 },
      { inFlight: 1_000, count: quick ? 10_000 : 40_000 },
    ];
    const figures: DurabilityFigure[] = [];
    const rounds = quick ? 1 : 3;
    for (const { inFlight, count } of levels) {
      const offs: ScheduleCost[] = [];
      const ons: ScheduleCost[] = [];
      for (let round = 0; round < rounds; round++) {
        offs.push({ ...(await measure(primary.port, nextPrefix(), count, inFlight)), waits: 0 });
        const before = await waitCalls();
        const measured = await measure(primary.port, nextPrefix(), count, inFlight, MEASURED_DURABILITY);
        ons.push({ ...measured, waits: (await waitCalls()) - before });
      }
      if (ons.some((on) => on.waits === 0)) throw new HarnessError('environment', 'a durability run sent no WAIT: the option was not applied');
      const [off, on] = [medianRound(offs), medianRound(ons)];
      figures.push({ inFlight, count, off, on });
      log(
        `  ${inFlight} in flight: off ${Math.round(off.perSec)} schedule/s (p50 ${off.p50Ms.toFixed(2)} ms, p99 ${off.p99Ms.toFixed(2)} ms); ` +
          `on ${Math.round(on.perSec)} schedule/s (p50 ${on.p50Ms.toFixed(2)} ms, p99 ${on.p99Ms.toFixed(2)} ms), ${on.waits} WAITs`,
      );
    }
    return figures;
  } finally {
    await Promise.all([replica.stop(), primary.stop()]);
  }
}
