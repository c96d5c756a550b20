// `npm run bench -- --soak MINUTES`: durable-timeout, then BullMQ, each for MINUTES at 2,000 fired
// timeouts/s with orders mixed like the orders sample app (soak-plan.ts). See docs/BENCHMARKS.md, "Soak".
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisProbe } from './redis-probe.js';
import type { RunResult } from './report.js';
import { concurrencyOf, runOne } from './runner.js';
import { actionsBetween, soakPlanOf, SOAK_FIRED_PER_SEC, type SoakPlan } from './soak-plan.js';
import type { SoakSample } from './soak-recorder.js';
import { growthOf, latenessWithin, mergeHistogram, minuteLateness, type LatenessHistogram, type Growth, type MinuteLateness } from './soak-stats.js';
import { SYSTEM } from './systems/names.js';
import type { BenchSystem, RedisTarget, SoakClient } from './systems/system.js';
import { formatNumber } from './table.js';
import { LATENESS_P99_AT_2K_MS } from './targets.js';
import { WorkerProcess } from './worker-process.js';
import { standardWorkloads, warmUpOf, NEST_WORKLOAD, type Workload } from './workloads.js';

/** Memory, CPU and fires are sampled this often over the window. */
export const SAMPLE_EVERY_MS = 10_000;

/** The scheduler sends the actions due so far this often. */
const TICK_MS = 20;

/** The first order is placed this long after the worker is ready. */
const START_DELAY_MS = 1_000;

/** One memory sample of the window: ms since the window started, bytes. */
export interface SoakMemorySample {
  atMs: number;
  workerHeapUsedBytes: number;
  workerRssBytes: number;
  redisUsedMemoryBytes: number;
}

/** The short steady 2,000/s run of the same system (`npm run bench`'s row), beside the soak. */
export interface ShortRunFigures {
  workerCpuUsPerFired: number | null;
  redisCpuUsPerFired: number | null;
  latenessP99Ms: number | null;
}

/** Everything one system's soak measured. */
export interface SoakRun {
  system: string;
  minutes: number;
  samples: SoakMemorySample[];
  growth: { workerHeapUsed: Growth; workerRss: Growth; redisUsedMemory: Growth };
  latenessByMinute: MinuteLateness[];
  /** Every minute's p99 against the 2,000/s target. */
  lateness: { limitMs: number; worstMinuteP99Ms: number | null; minutesOver: number; pass: boolean | null; windowP99Ms: number | null };
  /** Distinct timeouts fired in the window, and per second. */
  firedInWindow: number;
  firedPerSec: number | null;
  /** CPU over the whole window per fired timeout: the worker process, and Redis (schedules, cancels, replacements, fires). */
  workerCpuUsPerFired: number | null;
  redisCpuUsPerFired: number | null;
  /** The short run, or null when it did not run or failed. */
  shortRun: ShortRunFigures | null;
  /** Handler starts beyond the first for an id, of unknown ids, and of paid orders whose cancel came late. */
  duplicates: number;
  unknown: number;
  firedAfterCancel: number;
  /** How far the scheduler fell behind the plan at worst, ms, and its calls that failed. */
  schedulerMaxLagMs: number;
  schedulerFailedCalls: number;
}

/** What a soak needs from the benchmark. */
export interface SoakSpec {
  key: 'engine' | 'bullmq';
  system: BenchSystem;
  minutes: number;
  quick: boolean;
  target: RedisTarget;
  probe: RedisProbe;
  nextPrefix: () => string;
  log: (line: string) => void;
}

/** The steady 2,000/s workload of the short run. */
function shortWorkload(quick: boolean): Workload {
  return standardWorkloads(quick).find((workload) => workload.name === NEST_WORKLOAD)!;
}

async function shortRun(spec: SoakSpec): Promise<ShortRunFigures | null> {
  const workload = shortWorkload(spec.quick);
  try {
    const run: RunResult = await runOne({ system: spec.system, label: SYSTEM[spec.key], workload, warmUp: warmUpOf(workload, spec.quick), target: spec.target, probe: spec.probe, prefix: spec.nextPrefix(), log: spec.log });
    return { workerCpuUsPerFired: run.workerCpuUsPerFired, redisCpuUsPerFired: run.redisCpuUsPerFired, latenessP99Ms: run.lateness?.p99 ?? null };
  } catch (error) {
    spec.log(`  short run FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** Sends the plan's actions as their instants pass, until the window ends or `stop()`. */
class SoakDriver {
  maxLagMs = 0;
  failedCalls = 0;
  private stopped = false;

  constructor(
    private readonly plan: SoakPlan,
    private readonly client: SoakClient,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  async run(): Promise<void> {
    let done = this.plan.startAt;
    while (!this.stopped && done < this.plan.windowEndAt) {
      const now = Date.now();
      const to = Math.min(now + 1, this.plan.windowEndAt);
      if (to > done) {
        this.maxLagMs = Math.max(this.maxLagMs, now - done);
        const actions = actionsBetween(this.plan, done, to);
        done = to;
        const calls = [this.client.schedule(actions.schedules), this.client.cancel(actions.cancels), this.client.replace(actions.replaces)];
        for (const result of await Promise.allSettled(calls)) if (result.status === 'rejected') this.failedCalls++;
      }
      await sleep(Math.max(0, TICK_MS - (Date.now() - now)));
    }
  }
}

/** Runs the short run, then the soak, of one system. */
export async function runSoak(spec: SoakSpec): Promise<SoakRun> {
  const label = SYSTEM[spec.key];
  spec.log(`${label}: the short run (${shortWorkload(spec.quick).name}), for its CPU per fired timeout`);
  const short = await shortRun(spec);
  spec.log(`${label}: soak of ${spec.minutes} min at ${formatNumber(SOAK_FIRED_PER_SEC)} fired/s`);
  await spec.probe.flushAll();
  const prefix = spec.nextPrefix();
  const worker = WorkerProcess.fork(() => undefined);
  let client: SoakClient | undefined;
  let driver: SoakDriver | undefined;
  try {
    await worker.request({ type: 'start', system: spec.key, target: spec.target, settings: { prefix, concurrency: concurrencyOf(shortWorkload(false)) } }, 'ready', 30_000);
    client = await spec.system.openSoakClient!(spec.target, prefix);
    const plan = soakPlanOf(spec.minutes, Date.now() + START_DELAY_MS);
    await worker.request({ type: 'arm-soak', plan }, 'armed', 10_000);
    driver = new SoakDriver(plan, client);
    const driving = driver.run();
    const result = await sampleWindow(spec, label, plan, worker, driver);
    driver.stop();
    await driving;
    return { ...result, shortRun: short, schedulerMaxLagMs: driver.maxLagMs, schedulerFailedCalls: driver.failedCalls };
  } finally {
    driver?.stop();
    await worker.stop();
    await client?.close();
  }
}

type WindowFigures = Omit<SoakRun, 'shortRun' | 'schedulerMaxLagMs' | 'schedulerFailedCalls'>;

/** Takes a sample at the window's start and every `SAMPLE_EVERY_MS` to its end, and works out the figures. */
async function sampleWindow(spec: SoakSpec, label: string, plan: SoakPlan, worker: WorkerProcess, driver: SoakDriver): Promise<WindowFigures> {
  const samples: SoakMemorySample[] = [];
  const minutes: LatenessHistogram[] = Array.from({ length: spec.minutes }, () => new Map());
  const whole: LatenessHistogram = new Map();
  const count = (spec.minutes * 60_000) / SAMPLE_EVERY_MS;
  let first: { fired: number; workerCpuUs: number; redisCpuSeconds: number } | undefined;
  let last: { fired: number; workerCpuUs: number; redisCpuSeconds: number; sample: SoakSample } | undefined;
  for (let k = 0; k <= count; k++) {
    await sleep(Math.max(0, plan.windowStartAt + k * SAMPLE_EVERY_MS - Date.now()));
    const [{ sample }, usedMemory, redisCpuSeconds] = await Promise.all([worker.request({ type: 'sample' }, 'soak-sample', 10_000), spec.probe.usedMemory(), spec.probe.usedCpuSeconds()]);
    const atMs = Date.now() - plan.windowStartAt;
    samples.push({ atMs, workerHeapUsedBytes: sample.heapUsedBytes, workerRssBytes: sample.rssBytes, redisUsedMemoryBytes: usedMemory });
    last = { fired: sample.firedTotal, workerCpuUs: sample.cpuUs, redisCpuSeconds, sample };
    if (k === 0) {
      first = last;
      continue;
    }
    mergeHistogram(minutes[Math.floor((k - 1) / (60_000 / SAMPLE_EVERY_MS))]!, sample.lateness);
    mergeHistogram(whole, sample.lateness);
    if (k % (60_000 / SAMPLE_EVERY_MS) === 0) {
      const minute = minuteLateness([minutes[k / (60_000 / SAMPLE_EVERY_MS) - 1]!])[0]!;
      spec.log(
        `  minute ${k / (60_000 / SAMPLE_EVERY_MS)}: ${formatNumber(minute.fired / 60)} fired/s, lateness p99 ${formatNumber(minute.p99Ms)} ms, ` +
          `worker heap ${mb(sample.heapUsedBytes)} / RSS ${mb(sample.rssBytes)}, Redis used_memory ${mb(usedMemory)}, scheduler lag max ${formatNumber(driver.maxLagMs)} ms`,
      );
    }
  }
  const fired = last!.fired - first!.fired;
  const byMinute = minuteLateness(minutes);
  const within = latenessWithin(byMinute, LATENESS_P99_AT_2K_MS);
  const windowP99 = minuteLateness([whole])[0]!.p99Ms;
  spec.log(`  ${label} soak done: ${formatNumber(fired)} fired, p99 ${formatNumber(windowP99)} ms over the window`);
  return {
    system: label,
    minutes: spec.minutes,
    samples,
    growth: {
      workerHeapUsed: growthOf(samples.map((s) => ({ atMs: s.atMs, bytes: s.workerHeapUsedBytes }))),
      workerRss: growthOf(samples.map((s) => ({ atMs: s.atMs, bytes: s.workerRssBytes }))),
      redisUsedMemory: growthOf(samples.map((s) => ({ atMs: s.atMs, bytes: s.redisUsedMemoryBytes }))),
    },
    latenessByMinute: byMinute,
    lateness: { limitMs: LATENESS_P99_AT_2K_MS, worstMinuteP99Ms: within.worstP99Ms, minutesOver: within.minutesOver, pass: within.pass, windowP99Ms: windowP99 },
    firedInWindow: fired,
    firedPerSec: fired > 0 ? (fired * 1000) / (samples.at(-1)!.atMs - samples[0]!.atMs) : null,
    workerCpuUsPerFired: fired > 0 ? (last!.workerCpuUs - first!.workerCpuUs) / fired : null,
    redisCpuUsPerFired: fired > 0 ? ((last!.redisCpuSeconds - first!.redisCpuSeconds) * 1e6) / fired : null,
    duplicates: last!.sample.duplicates,
    unknown: last!.sample.unknown,
    firedAfterCancel: last!.sample.firedAfterCancel,
  };
}

function mb(bytes: number): string {
  return `${formatNumber(bytes / 1e6, 1)} MB`;
}
