// `npm run bench`: durable-timeout beside BullMQ delayed jobs, in-memory setTimeout and one-second
// polling, in one run against the same fresh Redis. See docs/BENCHMARKS.md.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { parseBenchArgs, USAGE, type BenchOptions } from './cli-options.js';
import { cpuByRateSvg, latenessCdfSvg, memoryOverTimeSvg } from './charts.js';
import { clusterSpread } from './cluster-spread.js';
import { measureIdle } from './idle.js';
import { renderProfileSummary, summarizeProfile, type CpuProfile } from './profile-summary.js';
import { RedisProbe } from './redis-probe.js';
import { failedRun, toJsonReport, type BenchReport, type RunResult } from './report.js';
import { runOne } from './runner.js';
import { runSoak, type SoakRun } from './soak.js';
import { renderSoakReport, toSoakJson } from './soak-report.js';
import { renderMarkdownReport, renderTextReport } from './summary.js';
import { BENCH_SLOTS, BENCH_TOPIC, engineSystem } from './systems/engine.system.js';
import { measureSingleAdds } from './systems/bullmq.system.js';
import { compareScheduling } from './scheduling-compare.js';
import { measureDurabilityCost } from './durability-cost.js';
import { measureRedisCpu } from './redis-cpu.js';
import { renderRedisCpu } from './redis-cpu-figures.js';
import { loadSystem } from './systems/index.js';
import { formatNumber, renderMarkdownTable } from './table.js';
import { METRICS_SYSTEMS, RATE_LIMIT_SYSTEMS, SYSTEM, type SystemKey } from './systems/names.js';
import { rateLimitFigure, rateLimitLine } from './rate-limit-cost.js';
import type { RedisTarget } from './systems/system.js';
import { evaluateTargets } from './targets.js';
import { NEST_WORKLOAD, standardWorkloads, warmUpOf, type Workload } from './workloads.js';

const started = Date.now();
const log = (line: string): void => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${seconds}s] ${line}`);
};

let runCounter = 0;
const nextPrefix = (): string => `bench${++runCounter}`;

function wants(options: BenchOptions, key: SystemKey | 'idle' | 'metrics' | 'scheduling' | 'durability' | 'redis-cpu' | 'rate-limit'): boolean {
  return options.only.length === 0 || options.only.includes(key);
}

function profileFileOf(options: BenchOptions, key: SystemKey, workload: Workload): string | undefined {
  if (!options.profileDir || (key !== 'engine' && key !== 'cluster' && key !== 'nest')) return undefined;
  return join(options.profileDir, `${key}-${workload.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`);
}

/** Runs one system; a run that breaks is logged and shows as an empty row, and the benchmark goes on. */
async function runOrReport(label: string, workload: Workload, run: () => Promise<RunResult>): Promise<RunResult> {
  try {
    return await run();
  } catch (error) {
    log(`  FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return failedRun(label, workload);
  }
}

/** The round with the median worker CPU per fired timeout (its row goes in the table). */
function medianRun(runs: readonly RunResult[]): RunResult {
  return [...runs].sort((a, b) => (a.workerCpuUsPerFired ?? Infinity) - (b.workerCpuUsPerFired ?? Infinity))[Math.floor(runs.length / 2)]!;
}

/** A fresh Redis without persistence for a part of the run, and what the part measures it with; names its version in the log. */
async function freshServer(): Promise<{ server: RedisServer; probe: RedisProbe; target: RedisTarget; version: string }> {
  const server = await RedisServer.start();
  const admin = server.client();
  const version = (await admin.info('server')).match(/redis_version:(\S+)/)?.[1] ?? '?';
  log(`Redis ${version} on port ${server.port} (no persistence)`);
  return { server, probe: new RedisProbe([admin]), target: { kind: 'single', host: server.host, port: server.port }, version };
}

async function singleNodeRuns(options: BenchOptions, workloads: Workload[], report: BenchReport): Promise<void> {
  const { server, probe, target, version } = await freshServer();
  try {
    report.environment.push(`Redis ${version}, one local server without persistence; the cluster run: 3 local masters`);
    const order: SystemKey[] = ['engine', 'nest', 'bullmq', 'memory', 'polling'];
    for (const workload of workloads) {
      for (const key of order) {
        if (key === 'nest' && workload.name !== NEST_WORKLOAD) continue;
        if (key === 'cluster' || !wants(options, key)) continue;
        const system = await loadSystem(key);
        report.runs.push(
          await runOrReport(SYSTEM[key], workload, () =>
            runOne({ system, label: SYSTEM[key], workload, warmUp: warmUpOf(workload, options.quick), target, probe, prefix: nextPrefix(), profileFile: profileFileOf(options, key, workload), log }),
          ),
        );
      }
    }
    if (wants(options, 'metrics')) {
      // The cost of metrics: the same burst, fired by a worker without metrics, with the bare API, and with an SDK.
      const burst = workloads[workloads.length - 1]!;
      for (const key of METRICS_SYSTEMS) {
        const system = await loadSystem(key);
        report.runs.push(
          await runOrReport(SYSTEM[key], burst, () => runOne({ system, label: SYSTEM[key], workload: burst, warmUp: warmUpOf(burst, options.quick), target, probe, prefix: nextPrefix(), log })),
        );
      }
    }
    if (wants(options, 'rate-limit')) {
      // The cost of a rate limit never reached: the same burst without and with one, 3 rounds (full: 5), each
      // round in the other order than the last (no side always runs first); the median round of each goes in the table.
      const burst = workloads[workloads.length - 1]!;
      const rounds = options.quick ? 3 : 5;
      const sides = new Map<SystemKey, RunResult[]>(RATE_LIMIT_SYSTEMS.map((key) => [key, []]));
      for (let round = 0; round < rounds; round++) {
        for (const key of round % 2 === 0 ? RATE_LIMIT_SYSTEMS : [...RATE_LIMIT_SYSTEMS].reverse()) {
          const system = await loadSystem(key);
          const run = await runOrReport(SYSTEM[key], burst, () => runOne({ system, label: SYSTEM[key], workload: burst, warmUp: warmUpOf(burst, options.quick), target, probe, prefix: nextPrefix(), log }));
          log(`  round ${round + 1}, ${SYSTEM[key]}: worker ${formatNumber(run.workerCpuUsPerFired, 1)} us + Redis ${formatNumber(run.redisCpuUsPerFired, 1)} us CPU per timeout`);
          sides.get(key)!.push(run);
        }
      }
      for (const key of RATE_LIMIT_SYSTEMS) report.runs.push(medianRun(sides.get(key)!));
      report.rateLimit = rateLimitFigure(sides.get('rateLimitOff')!, sides.get('rateLimitOn')!);
      log(`  ${rateLimitLine(report.rateLimit)}`);
    }
    if (wants(options, 'bullmq')) {
      const count = options.quick ? 5_000 : 20_000;
      log(`bullmq: one add() per timeout, ${formatNumber(count)} timeouts`);
      await probe.flushAll();
      const perSec = await measureSingleAdds(target, nextPrefix(), count);
      report.bullmqSingleAdd = { count, perSec };
      log(`  ${formatNumber(perSec)} schedule/s`);
      await probe.flushAll();
    }
    if (wants(options, 'scheduling')) {
      const count = options.quick ? 5_000 : 20_000;
      log(`scheduling side by side: ${formatNumber(count)} timeouts each, single calls and bulk calls of both systems`);
      report.scheduling = await compareScheduling(target, probe, count, nextPrefix, log);
    }
    if (wants(options, 'idle')) {
      // Longer than the engine's default sweep interval (60 s), so the mean covers a whole sweep cycle.
      const durationMs = options.quick ? 2_000 : 70_000;
      log(`idle: one engine instance, 4 topics x 16 slots, watched for ${durationMs / 1000} s`);
      report.idle = await measureIdle(target, server.client(), probe, durationMs);
      log(`  ${report.idle.commandsPerSec.toFixed(2)} commands/s sent (busiest ${Math.min(10, durationMs / 1000)} s: ${report.idle.busiestWindowPerSec.toFixed(2)}/s), ${report.idle.executedPerSec.toFixed(2)}/s run by Redis`);
    }
  } finally {
    await server.stop();
  }
}

async function clusterRun(options: BenchOptions, burst: Workload, report: BenchReport): Promise<void> {
  log('starting a local Redis Cluster (3 masters)');
  const cluster = await RedisCluster.start({ masters: 3 });
  try {
    const nodes = cluster.nodes.map((node) => node.client());
    const probe = new RedisProbe(nodes);
    const target: RedisTarget = { kind: 'cluster', nodes: cluster.startupNodes };
    const result: RunResult = await runOrReport(SYSTEM.cluster, burst, () => runOne({
      system: engineSystem,
      label: SYSTEM.cluster,
      workload: burst,
      warmUp: warmUpOf(burst, options.quick),
      target,
      probe,
      prefix: nextPrefix(),
      profileFile: profileFileOf(options, 'cluster', burst),
      whilePending: async (prefix) => {
        report.clusterSpread = await clusterSpread(nodes, prefix, BENCH_TOPIC, BENCH_SLOTS);
      },
      log,
    }));
    report.runs.push(result);
  } finally {
    await cluster.stop();
  }
}

/** `--soak MINUTES`: durable-timeout, then BullMQ, each soaked against the same fresh Redis (soak.ts). */
async function soakRuns(options: BenchOptions, minutes: number, environment: string[]): Promise<SoakRun[]> {
  const { server, probe, target, version } = await freshServer();
  const runs: SoakRun[] = [];
  try {
    environment.push(`Redis ${version}, one local server without persistence`);
    for (const key of ['engine', 'bullmq'] as const) {
      if (!wants(options, key)) continue;
      try {
        runs.push(await runSoak({ key, system: await loadSystem(key), minutes, quick: options.quick, target, probe, nextPrefix, log }));
      } catch (error) {
        log(`  ${SYSTEM[key]} soak FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await server.stop();
  }
  return runs;
}

function printProfiles(dir: string, report: BenchReport): void {
  const summaries: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const [key, ...rest] = file.replace(/\.cpuprofile$/, '').split('-');
    const workload = rest.join(' ');
    const label = SYSTEM[key as SystemKey] ?? key!;
    const run = report.runs.find((r) => r.system === label && r.workload.replace(/[^a-z0-9]+/gi, ' ') === workload);
    summaries.push(renderProfileSummary(`${label} / ${run?.workload ?? workload}`, summarizeProfile(profile), run ? run.fired : 0));
  }
  const text = summaries.join('\n\n');
  writeFileSync(join(dir, 'summary.txt'), `${text}\n`);
  console.log(`\nWorker CPU profiles (${dir}):\n${text}`);
}

/** The charts of `--svg DIR`: one lateness CDF per workload that ran, and CPU per fired timeout by rate. */
function writeCharts(dir: string, workloads: readonly Workload[], report: BenchReport): void {
  mkdirSync(dir, { recursive: true });
  const charts: [string, string | undefined][] = [
    ...[...new Set(report.runs.map((run) => run.workload))].map((workload): [string, string | undefined] => [
      `lateness-${workload.replace(/[^a-z0-9]+/gi, '-')}.svg`,
      latenessCdfSvg(workload, report.runs),
    ]),
    ['cpu-by-rate.svg', cpuByRateSvg(workloads, report.runs)],
  ];
  for (const [file, svg] of charts) {
    if (svg === undefined) continue;
    writeFileSync(join(dir, file), svg);
    log(`chart written to ${join(dir, file)}`);
  }
}

function bullmqVersion(): string {
  try {
    return (createRequire(import.meta.url)('bullmq/package.json') as { version: string }).version;
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  if (options.profileDir) {
    options.profileDir = resolve(options.profileDir);
    mkdirSync(options.profileDir, { recursive: true });
  }
  const workloads = standardWorkloads(options.quick);
  log(`durable-timeout benchmark (${options.quick ? 'quick' : 'full'}): Node ${process.version}, ${availableParallelism()} cores, bullmq ${bullmqVersion()}`);
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' / ');
  const report: BenchReport = {
    quick: options.quick,
    environment: [
      `${options.quick ? 'quick' : 'full'} run, ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${availableParallelism()} cores, bullmq ${bullmqVersion()}`,
    ],
    runs: [],
    idle: null,
    clusterSpread: [],
    bullmqSingleAdd: null,
  };
  const loadBefore = load();
  if (options.soakMinutes !== undefined) {
    report.environment[0] = report.environment[0]!.replace(/^\w+ run/, `soak of ${options.soakMinutes} min per system (short run: ${options.quick ? 'quick' : 'full'})`);
    const runs = await soakRuns(options, options.soakMinutes, report.environment);
    report.environment.push(`load average (1 / 5 / 15 min) before ${loadBefore}, after ${load()}`);
    console.log(`\n${report.environment.join('\n')}\n\n${renderSoakReport(runs)}\n`);
    if (options.jsonFile) {
      writeFileSync(options.jsonFile, `${JSON.stringify(toSoakJson(runs, report.environment), null, 2)}\n`);
      log(`JSON written to ${options.jsonFile}`);
    }
    const chart = options.svgDir ? memoryOverTimeSvg(runs) : undefined;
    if (options.svgDir && chart) {
      mkdirSync(options.svgDir, { recursive: true });
      writeFileSync(join(options.svgDir, 'soak-memory.svg'), chart);
      log(`chart written to ${join(options.svgDir, 'soak-memory.svg')}`);
    }
    log('done');
    return;
  }
  await singleNodeRuns(options, workloads, report);
  if (wants(options, 'cluster')) await clusterRun(options, workloads[workloads.length - 1]!, report);
  if (wants(options, 'durability')) {
    log('durability cost: schedule() without and with durability { replicas: 1 }, on a fresh primary with one replica');
    report.durability = await measureDurabilityCost(options.quick, nextPrefix, log);
  }
  if (wants(options, 'redis-cpu')) report.redisCpu = await measureRedisCpu(options.quick, log);

  report.environment.push(`load average (1 / 5 / 15 min) before ${loadBefore}, after ${load()}`);
  const verdicts = evaluateTargets(report);
  console.log(`\n${renderTextReport(report, verdicts)}\n`);
  if (report.redisCpu) console.log(`${renderRedisCpu(report.redisCpu)}\n`);
  if (options.jsonFile) {
    writeFileSync(options.jsonFile, `${JSON.stringify(toJsonReport(report), null, 2)}\n`);
    log(`JSON written to ${options.jsonFile}`);
  }
  if (options.markdownFile) {
    const redisCpu = report.redisCpu ? `\n${renderRedisCpu(report.redisCpu, renderMarkdownTable)}\n` : '';
    writeFileSync(options.markdownFile, renderMarkdownReport(report, verdicts) + redisCpu);
    log(`Markdown written to ${options.markdownFile}`);
  }
  if (options.svgDir) writeCharts(options.svgDir, workloads, report);
  if (options.profileDir) printProfiles(options.profileDir, report);
  log('done');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
