import { performance } from 'node:perf_hooks';
import type { FireResult } from './fire-recorder.js';
import { commandMixBetween, describeMix } from './redis-info.js';
import type { RedisProbe } from './redis-probe.js';
import type { RunResult } from './report.js';
import { cumulativeDistribution, perSecond, summarizeLateness } from './stats.js';
import { SYSTEM } from './systems/names.js';
import type { BenchSystem, RedisTarget, Scheduler } from './systems/system.js';
import { formatNumber } from './table.js';
import { WorkerProcess } from './worker-process.js';
import { lastDueAt, planOf, type DuePlan, type Workload } from './workloads.js';
import { redisCallsSent } from './redis-calls.js';

/** How one run is set up. */
export interface RunSpec {
  system: BenchSystem;
  /** Name in the table (the cluster run uses the engine system under another name). */
  label: string;
  workload: Workload;
  target: RedisTarget;
  probe: RedisProbe;
  /** Unique key prefix of the run. */
  prefix: string;
  /** Where to write a CPU profile of the worker's firing window, if anywhere. */
  profileFile?: string;
  /** The unmeasured round the worker fires before the measured one (`warmUpOf`); none when absent. */
  warmUp?: Workload;
  /** Called after the schedule-only phase, while every timeout is pending (cluster spread). */
  whilePending?: (prefix: string) => Promise<void>;
  log: (line: string) => void;
}

/** Schedule-only phase: the figures taken while nothing fires. */
interface PendingFigures {
  schedulePerSec: number | null;
  bytesPerPending: number | null;
  /** The same with 36-character UUID ids; null for the systems measured with short ids only. */
  bytesPerPendingUuid: number | null;
  elapsedMs: number;
}

/** Due times far enough ahead that nothing fires during the schedule-only phase. */
const FAR_FUTURE_MS = 3_600_000;
/** The firing phase starts at least this long after scheduling begins. */
const MIN_LEAD_MS = 750;
/** A run gives up this long after its last due time and reports what fired. */
const GRACE_MS = 30_000;
/** BullMQ concurrency of BASELINE.md: 50 for 2,000/s, 100 above. */
export const concurrencyOf = (workload: Workload): number => (workload.kind === 'steady' && workload.count / (workload.windowMs / 1000) <= 2_000 ? 50 : 100);

/** The systems whose memory is also measured with 36-character UUID ids (the memory target compares them). */
const UUID_MEMORY_SYSTEMS: readonly string[] = [SYSTEM.engine, SYSTEM.bullmq];

/** Schedules `plan` with a fresh scheduler and nothing firing: the time it took and the growth of `used_memory`. Flushes afterwards. */
async function schedulePending(spec: RunSpec, plan: DuePlan, whilePending?: (prefix: string) => Promise<void>): Promise<{ elapsedMs: number; bytes: number }> {
  const { system, probe } = spec;
  const scheduler = await system.openScheduler(spec.target, spec.prefix, async () => undefined);
  try {
    const before = await probe.usedMemory();
    const started = performance.now();
    await scheduler.scheduleAll(plan);
    const elapsedMs = performance.now() - started;
    const after = await probe.usedMemory();
    await whilePending?.(spec.prefix);
    return { elapsedMs, bytes: after - before };
  } finally {
    await scheduler.close();
    await probe.flushAll();
  }
}

async function measurePending(spec: RunSpec): Promise<PendingFigures> {
  const { workload } = spec;
  const short = await schedulePending(spec, planOf(workload, Date.now() + FAR_FUTURE_MS), spec.whilePending);
  const uuid = UUID_MEMORY_SYSTEMS.includes(spec.label)
    ? await schedulePending(spec, { ...planOf(workload, Date.now() + FAR_FUTURE_MS), uuidIds: true })
    : null;
  return {
    schedulePerSec: perSecond(workload.count, short.elapsedMs),
    bytesPerPending: short.bytes / workload.count,
    bytesPerPendingUuid: uuid === null ? null : uuid.bytes / workload.count,
    elapsedMs: short.elapsedMs,
  };
}

/**
 * One system under one workload, in two phases against a freshly flushed Redis:
 * 1. schedule everything far in the future with no worker running: schedule/s and bytes per pending;
 * 2. flush, start the worker process, let it fire the unmeasured warm-up round if any, then
 *    schedule the workload for real a little ahead (longer than phase 1 took) and wait until every
 *    id fired: lateness, fired/s, commands and calls per timeout, CPU per timeout.
 */
export async function runOne(spec: RunSpec): Promise<RunResult> {
  const { system, workload, probe, label } = spec;
  spec.log(`${label} / ${workload.name}: ${formatNumber(workload.count)} timeouts`);
  await probe.flushAll();
  const pending = system.usesRedis ? await measurePending(spec) : null;
  if (pending) {
    const uuid = pending.bytesPerPendingUuid === null ? '' : `, ${formatNumber(pending.bytesPerPendingUuid)} B each with UUID ids`;
    spec.log(`  scheduled ${formatNumber(workload.count)} in ${formatNumber(pending.elapsedMs)} ms, ${formatNumber(pending.bytesPerPending)} B each${uuid}`);
  }

  let lastProgress = 0;
  /** Timeouts of the round firing now (the warm-up's, then the workload's), for the progress lines. */
  let roundCount = workload.count;
  const worker = WorkerProcess.fork((fired) => {
    if (fired !== lastProgress) spec.log(`  fired ${formatNumber(fired)}/${formatNumber(roundCount)}`);
    lastProgress = fired;
  });
  let localElapsedMs: number | null = null;
  const scheduler = await system.openScheduler(spec.target, spec.prefix, async (plan: DuePlan) => {
    const reply = await worker.request({ type: 'schedule-local', plan }, 'scheduled', 60_000);
    localElapsedMs = reply.elapsedMs;
  });
  try {
    await worker.request({ type: 'start', system: system.key, target: spec.target, settings: { prefix: spec.prefix, concurrency: concurrencyOf(workload) } }, 'ready', 30_000);
    if (spec.warmUp) {
      const warmUp = planOf(spec.warmUp, Date.now() + leadOf(pending, spec.warmUp, workload), 'w');
      roundCount = warmUp.count;
      await fireRound(spec, worker, scheduler, warmUp);
      roundCount = workload.count;
      spec.log(`  warm-up round: ${formatNumber(warmUp.count)} timeouts fired, not measured`);
    }
    const callsBefore = system.usesRedis ? await probe.commandCalls() : null;
    const cpuBefore = system.usesRedis ? await probe.usedCpuSeconds() : null;
    const netBefore = system.usesRedis ? await probe.networkBytes() : null;
    const plan = planOf(workload, Date.now() + leadOf(pending, workload, workload));
    const scheduleCallsBefore = redisCallsSent();
    const outcome = await fireRound(spec, worker, scheduler, plan);
    const scheduleCalls = redisCallsSent() - scheduleCallsBefore;
    const redis: RedisCost | null =
      callsBefore && cpuBefore !== null && netBefore
        ? {
            mix: commandMixBetween(callsBefore, await probe.commandCalls()),
            cpuSeconds: (await probe.usedCpuSeconds()) - cpuBefore,
            net: await probe.networkBytes().then((after) => ({ input: after.input - netBefore.input, output: after.output - netBefore.output })),
            calls: scheduleCalls + outcome.result.redisCalls,
          }
        : null;
    const result = toRunResult(spec, plan, outcome.result, pending, localElapsedMs, redis);
    spec.log(
      `  done: ${formatNumber(result.fired - result.duplicates)}/${formatNumber(result.expected)} fired, ${formatNumber(result.firedPerSec)}/s, ` +
        `lateness p50 ${formatNumber(result.lateness?.p50)} / p99 ${formatNumber(result.lateness?.p99)} / max ${formatNumber(result.lateness?.max)} ms` +
        (outcome.complete ? '' : ' (INCOMPLETE: gave up waiting)'),
    );
    const warm = summarizeLateness(outcome.result.latenessAfterWarmUp);
    if (workload.kind === 'steady' && warm) {
      spec.log(`  lateness of the ids due after the first second: p50 ${formatNumber(warm.p50)} / p99 ${formatNumber(warm.p99)} / max ${formatNumber(warm.max)} ms`);
    }
    if (result.commandMix) {
      spec.log(`  Redis per timeout: ${result.commandMix}; network in ${formatNumber(result.netInPerFired)} B, out ${formatNumber(result.netOutPerFired)} B`);
    }
    return result;
  } finally {
    await worker.stop();
    await scheduler.close();
  }
}

/** Time to the first due time: longer than the pending phase took to schedule the whole workload (1.5x + 0.5 s), scaled to `round`. */
function leadOf(pending: PendingFigures | null, round: Workload, workload: Workload): number {
  const scheduleMs = ((pending?.elapsedMs ?? 0) * round.count) / workload.count;
  return Math.max(MIN_LEAD_MS, Math.ceil(scheduleMs * 1.5) + 500);
}

/** Arms the worker for `plan`, schedules it and waits until every id fired or the grace ran out. */
async function fireRound(spec: RunSpec, worker: WorkerProcess, scheduler: Scheduler, plan: DuePlan): Promise<{ result: FireResult; complete: boolean }> {
  await worker.request({ type: 'arm', plan, ...(spec.profileFile && plan.idPrefix === 't' ? { profileFile: spec.profileFile } : {}) }, 'armed', 10_000);
  await scheduler.scheduleAll(plan);
  const waitMs = lastDueAt(plan) - Date.now() + GRACE_MS;
  try {
    return await worker.waitFor('result', waitMs);
  } catch {
    return await worker.request({ type: 'collect' }, 'result', 10_000);
  }
}

/** What Redis did for one run's firing phase. */
interface RedisCost {
  /** Commands the scheduler and the worker sent (script calls once), as opposed to `mix`, which Redis ran. */
  calls: number;
  mix: Map<string, number>;
  cpuSeconds: number;
  net: { input: number; output: number };
}

function toRunResult(
  spec: RunSpec,
  plan: DuePlan,
  fire: FireResult,
  pending: PendingFigures | null,
  localElapsedMs: number | null,
  redis: RedisCost | null,
): RunResult {
  const distinct = fire.lateness.length;
  let commands = 0;
  for (const calls of redis?.mix.values() ?? []) commands += calls;
  return {
    system: spec.label,
    workload: spec.workload.name,
    schedulePerSec: pending?.schedulePerSec ?? (localElapsedMs === null ? null : perSecond(plan.count, localElapsedMs)),
    firedPerSec: fire.lastFireAt === null ? null : perSecond(distinct, Math.max(1, fire.lastFireAt - plan.startAt)),
    lateness: summarizeLateness(fire.lateness),
    latenessCdf: distinct === 0 ? null : cumulativeDistribution(fire.lateness),
    bytesPerPending: pending?.bytesPerPending ?? null,
    bytesPerPendingUuid: pending?.bytesPerPendingUuid ?? null,
    redisCommandsPerFired: redis === null || distinct === 0 ? null : commands / distinct,
    redisCallsPerFired: redis === null || distinct === 0 ? null : redis.calls / distinct,
    fired: fire.fired,
    expected: plan.count,
    duplicates: fire.duplicates,
    workerCpuUsPerFired: distinct === 0 ? null : fire.cpuUs / distinct,
    redisCpuUsPerFired: redis === null || distinct === 0 ? null : (redis.cpuSeconds * 1e6) / distinct,
    commandMix: redis === null || distinct === 0 ? '' : describeMix(redis.mix, distinct),
    netInPerFired: redis === null || distinct === 0 ? null : redis.net.input / distinct,
    netOutPerFired: redis === null || distinct === 0 ? null : redis.net.output / distinct,
  };
}

/** Label of a system key in the table. */
export function labelOf(key: keyof typeof SYSTEM): string {
  return SYSTEM[key];
}
