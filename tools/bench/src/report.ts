import type { DurabilityFigure } from './durability-cost.js';
import type { RateLimitFigure } from './rate-limit-cost.js';
import type { RedisCpuReport } from './redis-cpu-figures.js';
import type { SchedulingFigure } from './scheduling-compare.js';
import type { CdfPoint, LatenessSummary } from './stats.js';

/** Everything measured for one system under one workload. */
export interface RunResult {
  system: string;
  workload: string;
  /** Timeouts scheduled per second (one call per timeout, many in flight; BullMQ: addBulk, see the docs). */
  schedulePerSec: number | null;
  /** Timeouts fired per second: count over (last handler start - first due time). */
  firedPerSec: number | null;
  /** Handler start minus due time, ms. */
  lateness: LatenessSummary | null;
  /** The whole lateness distribution (first start of every id), for the charts; null when nothing fired. */
  latenessCdf: CdfPoint[] | null;
  /** `used_memory` growth per pending timeout (20-byte payload); null without Redis. */
  bytesPerPending: number | null;
  /** The same with 36-character UUID ids (durable-timeout and BullMQ only), null where not measured. */
  bytesPerPendingUuid: number | null;
  /** Redis commands per timeout over schedule, fire and ack (commands inside Lua scripts included). */
  redisCommandsPerFired: number | null;
  /** Commands the scheduler and the worker sent to Redis per timeout over schedule, fire and ack (a script call counts once: the round trips paid). */
  redisCallsPerFired: number | null;
  /** Handlers started (duplicates included) and expected. */
  fired: number;
  expected: number;
  /** Handler starts beyond the first for the same id. */
  duplicates: number;
  /** CPU time of the worker process per fired timeout, microseconds. */
  workerCpuUsPerFired: number | null;
  /** CPU time of Redis per timeout over schedule, fire and ack, microseconds. */
  redisCpuUsPerFired: number | null;
  /** The busiest Redis commands per timeout, e.g. `evalsha 2.00, zadd 1.00`. */
  commandMix: string;
  /** Bytes Redis read from / wrote to clients per timeout over schedule, fire and ack. */
  netInPerFired: number | null;
  netOutPerFired: number | null;
}

/** Cost of one idle instance. */
export interface IdleResult {
  system: string;
  /** Commands the instance sent per second over the whole watch (what a client pays: round trips). */
  commandsPerSec: number;
  /** Commands per second in the busiest 10-s window of the watch. */
  busiestWindowPerSec: number;
  /** Commands Redis ran per second for it, those inside Lua scripts included. */
  executedPerSec: number;
  windowMs: number;
  topics: number;
  slotsPerTopic: number;
}

/** How the slots of the cluster run landed on the shards. */
export interface ShardSpread {
  /** `master 1`, `master 2`, ... in hash-slot order. */
  node: string;
  /** Topic slots (hash tags) owned by this shard. */
  slots: number;
  /** Pending timeouts this shard held before firing. */
  timeouts: number;
}

/** A whole run of the benchmark. */
export interface BenchReport {
  quick: boolean;
  /** Where it ran: Node, cores, Redis and BullMQ versions, load average before and after. */
  environment: string[];
  runs: RunResult[];
  idle: IdleResult | null;
  clusterSpread: ShardSpread[];
  /** BullMQ's schedule/s with one `add()` per timeout (1,000 in flight), beside its `addBulk` rows. */
  bullmqSingleAdd: { count: number; perSec: number } | null;
  /** Scheduling alone, side by side: single and bulk calls of both systems (`--only scheduling`). */
  scheduling?: SchedulingFigure[];
  /** `schedule()` without and with the durability option, on a primary with one replica (`--only durability`). */
  durability?: DurabilityFigure[];
  /** Redis CPU per scheduled, fired and cancelled timeout, and per fire on each cluster master (`--only redis-cpu`). */
  redisCpu?: RedisCpuReport;
  /** CPU per fired timeout without and with a `rateLimit` that is never reached (`--only rate-limit`). */
  rateLimit?: RateLimitFigure;
}

/** The row of a run that broke before it could measure anything: every figure null, nothing fired. */
export function failedRun(system: string, workload: { name: string; count: number }): RunResult {
  return {
    system,
    workload: workload.name,
    schedulePerSec: null,
    firedPerSec: null,
    lateness: null,
    latenessCdf: null,
    bytesPerPending: null,
    bytesPerPendingUuid: null,
    redisCommandsPerFired: null,
    redisCallsPerFired: null,
    fired: 0,
    expected: workload.count,
    duplicates: 0,
    workerCpuUsPerFired: null,
    redisCpuUsPerFired: null,
    commandMix: '',
    netInPerFired: null,
    netOutPerFired: null,
  };
}

/** One row of the JSON file: every figure of the printed table for one system and workload, units in the names. */
export interface JsonRun {
  system: string;
  workload: string;
  schedulePerSec: number | null;
  firedPerSec: number | null;
  /** Handler start minus due time, nearest-rank percentiles over the first start of every id. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  bytesPerPending: number | null;
  /** `used_memory` growth per pending timeout with 36-character UUID ids (durable-timeout and BullMQ). */
  bytesPerPendingUuidIds: number | null;
  /** Commands Redis ran per fired timeout, those inside Lua scripts included. */
  redisCommandsPerFired: number | null;
  /** Commands the scheduler and the worker sent per fired timeout (schedules, claims, acks; a script call once). */
  redisCallsPerFired: number | null;
  workerCpuUsPerFired: number | null;
  redisCpuUsPerFired: number | null;
  netInBytesPerFired: number | null;
  netOutBytesPerFired: number | null;
  /** Distinct ids whose handler started, ids scheduled, and handler starts beyond the first for an id. */
  firedDistinct: number;
  expected: number;
  duplicates: number;
}

/** The JSON file written by `--json FILE`. */
export interface JsonReport {
  quick: boolean;
  environment: string[];
  runs: JsonRun[];
  idle: {
    system: string;
    /** Commands the idle instance sent per second, over the whole watch and in its busiest 10-s window. */
    commandsPerSec: number | null;
    busiestWindowCommandsPerSec: number | null;
    /** Commands Redis ran per second for it, those inside Lua scripts included. */
    executedCommandsPerSec: number | null;
    windowMs: number | null;
  };
  /** The rate limit cost (`--only rate-limit`): CPU per fired without (`off`) and with (`on`) a limit never reached, and their ratios. */
  rateLimit?: RateLimitFigure;
}

const whole = (value: number | null): number | null => (value === null ? null : Math.round(value));
const tenths = (value: number | null): number | null => (value === null ? null : Math.round(value * 10) / 10);
const hundredths = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

/** The rate limit figure at the table's precision: fired/s whole, CPU in tenths of us, ratios in thousandths. */
function jsonRateLimit(figure: RateLimitFigure): RateLimitFigure {
  const side = (s: RateLimitFigure['off']) => ({ firedPerSec: whole(s.firedPerSec), workerCpuUsPerFired: tenths(s.workerCpuUsPerFired), redisCpuUsPerFired: tenths(s.redisCpuUsPerFired) });
  const thousandths = (value: number | null): number | null => (value === null ? null : Math.round(value * 1000) / 1000);
  return { ...figure, off: side(figure.off), on: side(figure.on), ratio: thousandths(figure.ratio), workerRatio: thousandths(figure.workerRatio), redisRatio: thousandths(figure.redisRatio) };
}

/** The report as JSON: one row per system and workload with the table's figures, at the table's precision, and the idle cost. */
export function toJsonReport(report: BenchReport): JsonReport {
  const idle = report.idle;
  return {
    quick: report.quick,
    environment: report.environment,
    runs: report.runs.map((run) => ({
      system: run.system,
      workload: run.workload,
      schedulePerSec: whole(run.schedulePerSec),
      firedPerSec: whole(run.firedPerSec),
      latenessMs: {
        p50: run.lateness?.p50 ?? null,
        p99: run.lateness?.p99 ?? null,
        max: run.lateness?.max ?? null,
      },
      bytesPerPending: whole(run.bytesPerPending),
      bytesPerPendingUuidIds: whole(run.bytesPerPendingUuid),
      redisCommandsPerFired: hundredths(run.redisCommandsPerFired),
      redisCallsPerFired: hundredths(run.redisCallsPerFired),
      workerCpuUsPerFired: tenths(run.workerCpuUsPerFired),
      redisCpuUsPerFired: tenths(run.redisCpuUsPerFired),
      netInBytesPerFired: whole(run.netInPerFired),
      netOutBytesPerFired: whole(run.netOutPerFired),
      firedDistinct: run.fired - run.duplicates,
      expected: run.expected,
      duplicates: run.duplicates,
    })),
    idle: {
      system: idle?.system ?? 'durable-timeout',
      commandsPerSec: hundredths(idle?.commandsPerSec ?? null),
      busiestWindowCommandsPerSec: hundredths(idle?.busiestWindowPerSec ?? null),
      executedCommandsPerSec: hundredths(idle?.executedPerSec ?? null),
      windowMs: idle?.windowMs ?? null,
    },
    ...(report.rateLimit ? { rateLimit: jsonRateLimit(report.rateLimit) } : {}),
  };
}
