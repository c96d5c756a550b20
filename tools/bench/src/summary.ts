import type { BenchReport, RunResult } from './report.js';
import { NOT_MEASURED, type TargetVerdict } from './targets.js';
import { METRICS_SYSTEMS, SYSTEM } from './systems/names.js';
import type { DurabilityFigure } from './durability-cost.js';
import type { SchedulingFigure } from './scheduling-compare.js';
import { rateLimitLine } from './rate-limit-cost.js';
import { formatNumber, renderMarkdownTable, renderTable, type Column } from './table.js';

const RUN_COLUMNS: Column[] = [
  { header: 'system' },
  { header: 'workload' },
  { header: 'schedule/s', align: 'right' },
  { header: 'fired/s', align: 'right' },
  { header: 'late p50', align: 'right' },
  { header: 'p99', align: 'right' },
  { header: 'max (ms)', align: 'right' },
  { header: 'B/pending', align: 'right' },
  { header: 'cmds/fired', align: 'right' },
  { header: 'calls/fired', align: 'right' },
  { header: 'worker CPU us', align: 'right' },
  { header: 'Redis CPU us', align: 'right' },
  { header: 'fired', align: 'right' },
];

function firedCell(run: RunResult): string {
  const base = `${formatNumber(run.fired - run.duplicates)}/${formatNumber(run.expected)}`;
  return run.duplicates > 0 ? `${base} +${formatNumber(run.duplicates)} dup` : base;
}

/** One table row per run. */
export function runRows(runs: readonly RunResult[]): string[][] {
  return runs.map((run) => [
    run.system,
    run.workload,
    formatNumber(run.schedulePerSec),
    formatNumber(run.firedPerSec),
    formatNumber(run.lateness?.p50),
    formatNumber(run.lateness?.p99),
    formatNumber(run.lateness?.max),
    formatNumber(run.bytesPerPending),
    formatNumber(run.redisCommandsPerFired, 2),
    formatNumber(run.redisCallsPerFired, 2),
    formatNumber(run.workerCpuUsPerFired, 1),
    formatNumber(run.redisCpuUsPerFired, 1),
    firedCell(run),
  ]);
}

const TARGET_COLUMNS: Column[] = [{ header: 'target' }, { header: 'measured' }, { header: 'verdict' }];

function verdictText(verdict: TargetVerdict): string {
  if (verdict.pass === null) return verdict.reportOnly && verdict.measured !== NOT_MEASURED ? 'reported' : 'n/a';
  return verdict.pass ? 'PASS' : 'FAIL';
}

/** One row per target. */
export function targetRows(verdicts: readonly TargetVerdict[]): string[][] {
  return verdicts.map((v) => [v.target, v.measured, verdictText(v)]);
}

function extraLines(report: BenchReport): string[] {
  const lines: string[] = [];
  if (report.idle) {
    const idle = report.idle;
    lines.push(
      `Idle: one ${idle.system} instance, ${idle.topics} topics x ${idle.slotsPerTopic} slots, watched ${formatNumber(idle.windowMs / 1000)} s: ` +
        `${formatNumber(idle.commandsPerSec, 2)} commands/s sent (busiest ${formatNumber(Math.min(10_000, idle.windowMs) / 1000)} s: ${formatNumber(idle.busiestWindowPerSec, 2)}/s), ` +
        `${formatNumber(idle.executedPerSec, 2)} commands/s run by Redis (Lua included).`,
    );
  }
  if (report.bullmqSingleAdd) {
    const { count, perSec } = report.bullmqSingleAdd;
    lines.push(`BullMQ with one add() per timeout (${formatNumber(count)} timeouts, 1,000 in flight): ${formatNumber(perSec)} schedule/s (the bullmq rows use addBulk).`);
  }
  if (report.scheduling && report.scheduling.length > 0) lines.push(...schedulingLines(report.scheduling));
  if (report.durability && report.durability.length > 0) lines.push(...durabilityLines(report.durability));
  const metrics = metricsCostLine(report.runs);
  if (metrics) lines.push(metrics);
  if (report.rateLimit) lines.push(rateLimitLine(report.rateLimit));
  if (report.clusterSpread.length > 0) {
    const shards = report.clusterSpread.map((s) => `${s.node}: ${s.slots} slots, ${formatNumber(s.timeouts)} timeouts`);
    lines.push(`Cluster spread: ${shards.join('; ')}.`);
  }
  return lines;
}

/**
 * The scheduling comparison: one line per method (rate, client and Redis CPU per timeout), then
 * the ratios of durable-timeout to BullMQ for single calls and for bulk calls.
 */
export function schedulingLines(figures: readonly SchedulingFigure[]): string[] {
  const lines = figures.map(
    (f) =>
      `Scheduling ${formatNumber(f.count)} timeouts, ${f.system} ${f.method}: ${formatNumber(f.perSec)} schedule/s, ` +
      `client CPU ${formatNumber(f.clientCpuUsPerTimeout, 1)} us and Redis CPU ${formatNumber(f.redisCpuUsPerTimeout, 1)} us per timeout.`,
  );
  const of = (method: string) => figures.find((f) => f.method === method);
  const ratio = (ours: SchedulingFigure | undefined, theirs: SchedulingFigure | undefined, label: string) => {
    if (!ours || !theirs) return;
    lines.push(
      `${label}: ${formatNumber(ours.perSec / theirs.perSec, 2)}x schedule/s, ${formatNumber(theirs.clientCpuUsPerTimeout / ours.clientCpuUsPerTimeout, 2)}x less client CPU, ` +
        `${formatNumber(theirs.redisCpuUsPerTimeout / ours.redisCpuUsPerTimeout, 2)}x less Redis CPU per timeout.`,
    );
  };
  ratio(of('scheduleMany()'), of('addBulk()'), 'scheduleMany() vs addBulk()');
  ratio(of('schedule()'), of('add()'), 'schedule() vs add()');
  return lines;
}

/**
 * The durability cost: one line per load level, `schedule()` without and with
 * `durability: { replicas: 1 }` side by side (rate, p50 and p99 latency of a call).
 */
export function durabilityLines(figures: readonly DurabilityFigure[]): string[] {
  return figures.map(
    (f) =>
      `Durability cost (primary + 1 replica), ${formatNumber(f.count)} schedule() calls, ${formatNumber(f.inFlight)} in flight: ` +
      `off ${formatNumber(f.off.perSec)} schedule/s, p50 ${formatNumber(f.off.p50Ms, 2)} ms, p99 ${formatNumber(f.off.p99Ms, 2)} ms; ` +
      `durability { replicas: 1 } ${formatNumber(f.on.perSec)} schedule/s (${change(f.on.perSec, f.off.perSec)}), ` +
      `p50 ${formatNumber(f.on.p50Ms, 2)} ms, p99 ${formatNumber(f.on.p99Ms, 2)} ms, ${formatNumber(f.on.waits)} WAITs (${formatNumber(f.count / Math.max(1, f.on.waits), 1)} calls per WAIT).`,
  );
}

/**
 * The metrics comparison in one line: fired/s and worker CPU per timeout of the bare API and of the
 * SDK, each against the run without metrics. Undefined when the comparison did not run.
 */
export function metricsCostLine(runs: readonly RunResult[]): string | undefined {
  const run = (key: (typeof METRICS_SYSTEMS)[number]) => runs.find((candidate) => candidate.system === SYSTEM[key]);
  const off = run('metricsOff');
  if (!off) return undefined;
  const versus = (label: string, other: RunResult | undefined): string => {
    if (!other) return `${label}: no run`;
    return (
      `${label} ${formatNumber(other.firedPerSec)} fired/s (${change(other.firedPerSec, off.firedPerSec)}), ` +
      `${formatNumber(other.workerCpuUsPerFired, 1)} us CPU per timeout (${change(other.workerCpuUsPerFired, off.workerCpuUsPerFired)})`
    );
  };
  return (
    `Metrics and tracing cost (${off.workload}, worker process): off ${formatNumber(off.firedPerSec)} fired/s, ${formatNumber(off.workerCpuUsPerFired, 1)} us CPU per timeout; ` +
    `${versus('API without SDK', run('metricsApi'))}; ${versus('with the SDKs (metrics collected every second, a span per handler run)', run('metricsSdk'))}.`
  );
}

function change(value: number | null, base: number | null): string {
  if (value === null || base === null || base === 0) return 'n/a';
  const percent = ((value - base) / base) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

/** The readable report printed at the end of a run. */
export function renderTextReport(report: BenchReport, verdicts: readonly TargetVerdict[]): string {
  return [
    ...report.environment,
    '',
    renderTable(RUN_COLUMNS, runRows(report.runs)),
    '',
    ...extraLines(report),
    '',
    renderTable(TARGET_COLUMNS, targetRows(verdicts)),
  ].join('\n');
}

/** The same report as Markdown (`--markdown FILE`), pasted into docs/BENCHMARKS.md. */
export function renderMarkdownReport(report: BenchReport, verdicts: readonly TargetVerdict[]): string {
  return [
    ...report.environment.map((line) => `- ${line}`),
    '',
    renderMarkdownTable(RUN_COLUMNS, runRows(report.runs)),
    '',
    ...extraLines(report).map((line) => `${line}\n`),
    renderMarkdownTable(TARGET_COLUMNS, targetRows(verdicts)),
    '',
  ].join('\n');
}
