import type { BenchReport, RunResult } from './report.js';
import { formatNumber } from './table.js';
import { SYSTEM } from './systems/names.js';
import { LOW_RATE_WORKLOAD, standardWorkloads } from './workloads.js';
import { rateLimitVerdict } from './rate-limit-cost.js';

/** One target of the benchmark (docs/BENCHMARKS.md, "Targets over three full runs") with what this run measured. */
export interface TargetVerdict {
  target: string;
  measured: string;
  /** null when the run lacks a figure the target needs, or when the figure is reported without a limit. */
  pass: boolean | null;
  /** A figure printed beside the targets with no limit of its own: its verdict reads `reported`. */
  reportOnly?: boolean;
}

/** What a target says when the run lacks one of its figures (e.g. `--only engine` has no BullMQ run). */
export const NOT_MEASURED = 'not measured';

/** The lateness p99 target at a steady 2,000/s, ms (docs/BENCHMARKS.md, "Targets over three full runs"); the soak holds every minute to it. */
export const LATENESS_P99_AT_2K_MS = 5;

/** The lateness p99 target at a steady 10,000/s, ms. */
export const LATENESS_P99_AT_10K_MS = 10;

/** The lateness p50 target at both 2,000/s and 10,000/s, ms. */
export const LATENESS_P50_MS = 2;

/** Lateness under this is below the clock resolution; ratios divide by at least this. */
const LATENESS_FLOOR_MS = 1;

function find(runs: readonly RunResult[], system: string, workload: string): RunResult | undefined {
  return runs.find((run) => run.system === system && run.workload === workload);
}

const ratio = (value: number): string => `${formatNumber(value, 1)}x`;
/** A ratio held to a limit with two decimals (0.7x, 1.15x): shown with two so that a figure just over it does not read as on it. */
const fineRatio = (value: number): string => `${formatNumber(value, 2)}x`;
const share = (value: number): string => `1/${formatNumber(1 / value, 2)}`;

/** A figure of the engine's run against the same figure of BullMQ's run on one workload, as engine / BullMQ. */
function versusBullmq(
  report: BenchReport,
  workload: string,
  figure: (run: RunResult) => number | null,
  unit: string,
  digits = 1,
): { factor: number; text: (shown: string) => string } | null {
  const engine = find(report.runs, SYSTEM.engine, workload);
  const bull = find(report.runs, SYSTEM.bullmq, workload);
  const ours = engine ? figure(engine) : null;
  const theirs = bull ? figure(bull) : null;
  if (ours === null || theirs === null || theirs <= 0) return null;
  return { factor: ours / theirs, text: (shown) => `${shown} (${formatNumber(ours, digits)} vs ${formatNumber(theirs, digits)}${unit})` };
}

/** A target on engine / BullMQ of one figure: at most `limit` (or reported only when `limit` is null). */
function costTarget(
  report: BenchReport,
  target: string,
  workload: string,
  figure: (run: RunResult) => number | null,
  unit: string,
  limit: number | null,
  show: (factor: number) => string = fineRatio,
): TargetVerdict {
  const compared = versusBullmq(report, workload, figure, unit);
  return {
    target,
    measured: compared ? compared.text(show(compared.factor)) : NOT_MEASURED,
    pass: compared && limit !== null ? compared.factor <= limit : null,
    ...(limit === null ? { reportOnly: true } : {}),
  };
}

const workerCpu = (run: RunResult) => run.workerCpuUsPerFired;
const redisCpu = (run: RunResult) => run.redisCpuUsPerFired;

/** Redis calls per fired timeout of the engine on one workload: at most `limit` (absolute), or reported only. */
function callsTarget(report: BenchReport, workload: string, limit: number | null): TargetVerdict {
  const calls = find(report.runs, SYSTEM.engine, workload)?.redisCallsPerFired ?? null;
  const bull = find(report.runs, SYSTEM.bullmq, workload)?.redisCallsPerFired ?? null;
  return {
    target: `Redis calls per fired @ ${workload}${limit === null ? '' : ` <= ${formatNumber(limit, 1)}`}`,
    measured: calls === null ? NOT_MEASURED : `${formatNumber(calls, 2)}${bull === null ? '' : ` (BullMQ ${formatNumber(bull, 2)})`}`,
    pass: calls !== null && limit !== null ? calls <= limit : null,
    ...(limit === null ? { reportOnly: true } : {}),
  };
}

/** The worker CPU, Redis CPU and Redis calls per fired timeout at one steady rate, with the limits the rate has (null: reported). */
function costTargets(report: BenchReport, workload: string, limits: { worker: number | null; redis: number | null; calls: number | null }): TargetVerdict[] {
  const name = (what: string, limit: number | null) => `${what} per fired @ ${workload}${limit === null ? ', vs BullMQ' : ` <= ${formatNumber(limit, 1)}x BullMQ`}`;
  return [
    costTarget(report, name('worker CPU', limits.worker), workload, workerCpu, ' us', limits.worker),
    costTarget(report, name('Redis CPU', limits.redis), workload, redisCpu, ' us', limits.redis),
    callsTarget(report, workload, limits.calls),
  ];
}

function latenessTargets(report: BenchReport, workload: string, p99LimitMs: number): TargetVerdict[] {
  const engine = find(report.runs, SYSTEM.engine, workload)?.lateness ?? null;
  const bullP99 = find(report.runs, SYSTEM.bullmq, workload)?.lateness?.p99 ?? null;
  const p99 = engine?.p99 ?? null;
  const p50 = engine?.p50 ?? null;
  const factor = p99 === null || bullP99 === null ? null : bullP99 / Math.max(p99, LATENESS_FLOOR_MS);
  return [
    {
      target: `lateness p99 @ ${workload} <= ${p99LimitMs} ms`,
      measured: p99 === null ? NOT_MEASURED : `${formatNumber(p99)} ms`,
      pass: p99 === null ? null : p99 <= p99LimitMs,
    },
    {
      target: `lateness p99 @ ${workload} >= 10x lower than BullMQ`,
      measured: factor === null ? NOT_MEASURED : `${ratio(factor)} (${formatNumber(p99)} vs ${formatNumber(bullP99)} ms)`,
      pass: factor === null ? null : factor >= 10,
    },
    {
      target: `lateness p50 @ ${workload} <= ${LATENESS_P50_MS} ms`,
      measured: p50 === null ? NOT_MEASURED : `${formatNumber(p50)} ms`,
      pass: p50 === null ? null : p50 <= LATENESS_P50_MS,
    },
  ];
}

/** The burst against BullMQ's (fired/s, Redis CPU per fired) and the cluster's burst against one server's. */
function burstTargets(report: BenchReport, burst: string): TargetVerdict[] {
  const fired = versusBullmq(report, burst, (run) => run.firedPerSec, '/s', 0);
  const engine = find(report.runs, SYSTEM.engine, burst);
  const cluster = find(report.runs, SYSTEM.cluster, burst);
  const oneServer = engine?.redisCpuUsPerFired ?? null;
  const onCluster = cluster?.redisCpuUsPerFired ?? null;
  const clusterFactor = oneServer === null || onCluster === null || oneServer <= 0 ? null : onCluster / oneServer;
  const clusterFired = cluster?.firedPerSec ?? null;
  return [
    {
      target: `${burst} fired/s >= 3x BullMQ (one worker process)`,
      measured: fired ? fired.text(ratio(fired.factor)) : NOT_MEASURED,
      pass: fired ? fired.factor >= 3 : null,
    },
    costTarget(report, `${burst} Redis CPU per fired <= 1/4 of BullMQ`, burst, redisCpu, ' us', 0.25, share),
    {
      target: `${burst} Redis CPU per fired on a 3-master cluster <= 1.15x one server's`,
      measured: clusterFactor === null ? NOT_MEASURED : `${fineRatio(clusterFactor)} (${formatNumber(onCluster, 1)} vs ${formatNumber(oneServer, 1)} us)`,
      pass: clusterFactor === null ? null : clusterFactor <= 1.15,
    },
    {
      target: `${burst} fired/s on a 3-master cluster (one worker process)`,
      measured: clusterFired === null ? NOT_MEASURED : `${formatNumber(clusterFired)}/s`,
      pass: null,
      reportOnly: true,
    },
  ];
}

/** Bytes per pending of the engine over BullMQ's at the workload where the share is largest: at most 1/5. */
function memoryTarget(report: BenchReport, target: string, bytes: (run: RunResult) => number | null): TargetVerdict {
  // The memory target was set on the original workloads; a few thousand timeouts at 200/s measure fixed costs.
  const shares = report.runs
    .filter((run) => run.system === SYSTEM.engine && run.workload !== LOW_RATE_WORKLOAD)
    .map((run) => versusBullmq(report, run.workload, bytes, ' B', 0))
    .filter((compared) => compared !== null);
  const worst = shares.length ? shares.reduce((a, b) => (b.factor > a.factor ? b : a)) : null;
  return {
    target,
    measured: worst === null ? NOT_MEASURED : worst.text(share(worst.factor)),
    pass: worst === null ? null : worst.factor <= 0.2,
  };
}

/** Checks the benchmark's targets as ratios within this run, the engine against BullMQ. */
export function evaluateTargets(report: BenchReport): TargetVerdict[] {
  // The workloads of this run, by the names every run gives them.
  const [low, steadySlow, steadyFast, burst] = standardWorkloads(report.quick).map((workload) => workload.name) as [string, string, string, string];
  const verdicts: TargetVerdict[] = [
    ...costTargets(report, steadySlow, { worker: 0.7, redis: 0.5, calls: 0.5 }),
    ...costTargets(report, low, { worker: 1, redis: null, calls: null }),
    ...costTargets(report, steadyFast, { worker: null, redis: null, calls: null }),
    ...latenessTargets(report, steadySlow, LATENESS_P99_AT_2K_MS),
    ...latenessTargets(report, steadyFast, LATENESS_P99_AT_10K_MS),
    ...burstTargets(report, burst),
  ];

  verdicts.push(
    memoryTarget(report, 'bytes per pending <= 1/5 of BullMQ (worst workload)', (run) => run.bytesPerPending),
    memoryTarget(report, 'bytes per pending with 36-character UUID ids <= 1/5 of BullMQ (worst workload)', (run) => run.bytesPerPendingUuid),
  );

  verdicts.push(...schedulingVerdicts(report));

  const idle = report.idle;
  verdicts.push({
    target: `idle cost <= 2 commands/s (${idle ? `${idle.topics} topics x ${idle.slotsPerTopic} slots` : 'one instance'})`,
    measured: idle
      ? `${formatNumber(idle.commandsPerSec, 2)}/s sent over ${formatNumber(idle.windowMs / 1000)} s (busiest ${formatNumber(Math.min(10_000, idle.windowMs) / 1000)} s ${formatNumber(idle.busiestWindowPerSec, 2)}/s)`
      : NOT_MEASURED,
    pass: idle ? idle.commandsPerSec <= 2 : null,
  });
  if (report.rateLimit) verdicts.push(rateLimitVerdict(report.rateLimit));
  return verdicts;
}

/**
 * The targets of the scheduling comparison (docs/BENCHMARKS.md, "Scheduling side by side"): bulk calls against `addBulk`,
 * single calls against one `add()` per job, in schedule/s and in client + Redis CPU per scheduled timeout.
 */
function schedulingVerdicts(report: BenchReport): TargetVerdict[] {
  const figure = (system: string, method: string) => report.scheduling?.find((f) => f.system === system && f.method === method) ?? null;
  const pairs: [string, string, string, number][] = [
    ['scheduleMany()', 'addBulk()', 'addBulk()', 4],
    ['schedule()', 'add()', 'add() per job', 3],
  ];
  return pairs.flatMap(([ours, theirs, theirName, limit]) => {
    const engine = figure(SYSTEM.engine, ours);
    const bull = figure(SYSTEM.bullmq, theirs);
    const factor = engine && bull ? engine.perSec / bull.perSec : null;
    const engineCpu = engine ? engine.clientCpuUsPerTimeout + engine.redisCpuUsPerTimeout : null;
    const bullCpu = bull ? bull.clientCpuUsPerTimeout + bull.redisCpuUsPerTimeout : null;
    const cpuFactor = engineCpu === null || bullCpu === null ? null : bullCpu / Math.max(engineCpu, Number.MIN_VALUE);
    return [
      {
        target: `${ours} schedule/s >= ${limit}x BullMQ ${theirName}`,
        measured: factor === null ? NOT_MEASURED : `${ratio(factor)} (${formatNumber(engine!.perSec)} vs ${formatNumber(bull!.perSec)}/s)`,
        pass: factor === null ? null : factor >= limit,
      },
      {
        target: `${ours} client + Redis CPU per scheduled timeout >= 5x less than BullMQ ${theirName}`,
        measured: cpuFactor === null ? NOT_MEASURED : `${ratio(cpuFactor)} (${formatNumber(engineCpu, 1)} vs ${formatNumber(bullCpu, 1)} us)`,
        pass: cpuFactor === null ? null : cpuFactor >= 5,
      },
    ];
  });
}
