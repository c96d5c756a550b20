import { describe, expect, it } from '@jest/globals';
import type { BenchReport, RunResult } from './report.js';
import { durabilityLines, metricsCostLine, renderMarkdownReport, renderTextReport, runRows, targetRows } from './summary.js';
import { SYSTEM } from './systems/names.js';
import { NOT_MEASURED } from './targets.js';

const run: RunResult = {
  system: 'durable-timeout',
  workload: 'burst 50k',
  schedulePerSec: 90_123.4,
  firedPerSec: 51_000,
  lateness: { p50: 120, p99: 480, max: 510 },
  latenessCdf: null,
  bytesPerPending: 150.2,
  redisCommandsPerFired: 7.166,
  redisCallsPerFired: 0.254,
  fired: 50_003,
  expected: 50_000,
  duplicates: 3,
  workerCpuUsPerFired: 14.44,
  redisCpuUsPerFired: 20.06,
  commandMix: 'hset 2.00',
  netInPerFired: 120,
  netOutPerFired: 80,
};

const report: BenchReport = {
  quick: false,
  environment: ['full run, Node v20'],
  runs: [run],
  idle: { system: 'durable-timeout', commandsPerSec: 1.07, busiestWindowPerSec: 1.9, executedPerSec: 5.5, windowMs: 70_000, topics: 4, slotsPerTopic: 16 },
  clusterSpread: [{ node: '127.0.0.1:7001', slots: 6, timeouts: 18_000 }],
  bullmqSingleAdd: { count: 20_000, perSec: 8_000 },
};

describe('summary', () => {
  it('formats one row per run, duplicates shown apart', () => {
    expect(runRows([run])).toEqual([
      ['durable-timeout', 'burst 50k', '90,123', '51,000', '120', '480', '510', '150', '7.17', '0.25', '14.4', '20.1', '50,000/50,000 +3 dup'],
    ]);
  });

  it('says reported for a figure without a limit, n/a when it was not measured either', () => {
    const rows = targetRows([
      { target: 'r', measured: '0.50x (40.0 vs 80.0 us)', pass: null, reportOnly: true },
      { target: 's', measured: NOT_MEASURED, pass: null, reportOnly: true },
    ]);
    expect(rows.map((row) => row[2])).toEqual(['reported', 'n/a']);
  });

  it('spells verdicts out, n/a when a figure was missing', () => {
    expect(targetRows([{ target: 't', measured: 'm', pass: true }, { target: 'u', measured: '-', pass: null }, { target: 'v', measured: 'x', pass: false }]).map((row) => row[2])).toEqual(['PASS', 'n/a', 'FAIL']);
  });

  it('prints the environment, the runs, idle, cluster spread and targets', () => {
    const text = renderTextReport(report, [{ target: 'idle', measured: '1.07/s', pass: true }]);
    expect(text.split('\n')[0]).toBe('full run, Node v20');
    expect(text).toContain('watched 70 s: 1.07 commands/s sent (busiest 10 s: 1.90/s), 5.50 commands/s run by Redis');
    expect(text).toContain('127.0.0.1:7001: 6 slots, 18,000 timeouts');
    expect(text).toContain('BullMQ with one add() per timeout (20,000 timeouts, 1,000 in flight): 8,000 schedule/s');
    expect(text).toMatch(/idle\s+1\.07\/s\s+PASS/);
  });

  it('renders the same report as Markdown tables', () => {
    const markdown = renderMarkdownReport(report, []);
    expect(markdown.startsWith('- full run, Node v20\n')).toBe(true);
    expect(markdown).toContain('| durable-timeout | burst 50k | 90,123 |');
  });
});

describe('metricsCostLine', () => {
  const metricsRun = (system: string, firedPerSec: number | null, workerCpuUsPerFired: number | null): RunResult => ({
    ...run,
    system,
    firedPerSec,
    workerCpuUsPerFired,
  });

  it('compares the bare API and the SDK with the run without metrics', () => {
    const line = metricsCostLine([
      run,
      metricsRun(SYSTEM.metricsOff, 40_000, 20),
      metricsRun(SYSTEM.metricsApi, 40_400, 19.8),
      metricsRun(SYSTEM.metricsSdk, 36_000, 23),
    ]);
    expect(line).toBe(
      'Metrics and tracing cost (burst 50k, worker process): off 40,000 fired/s, 20.0 us CPU per timeout; ' +
        'API without SDK 40,400 fired/s (+1.0%), 19.8 us CPU per timeout (-1.0%); ' +
        'with the SDKs (metrics collected every second, a span per handler run) 36,000 fired/s (-10.0%), 23.0 us CPU per timeout (+15.0%).',
    );
  });

  it('is absent when the comparison did not run, and says so for a run that is missing', () => {
    expect(metricsCostLine([run])).toBeUndefined();
    expect(metricsCostLine([metricsRun(SYSTEM.metricsOff, 1, null)])).toContain('API without SDK: no run');
    expect(metricsCostLine([metricsRun(SYSTEM.metricsOff, 1, null), metricsRun(SYSTEM.metricsApi, 1, 2)])).toContain('CPU per timeout (n/a)');
  });
});

describe('durabilityLines', () => {
  it('puts the figures without and with the option side by side, with the change in rate and the calls per WAIT', () => {
    const lines = durabilityLines([
      {
        inFlight: 50,
        count: 20_000,
        off: { perSec: 40_000, p50Ms: 1.2, p99Ms: 3.456, waits: 0 },
        on: { perSec: 30_000, p50Ms: 1.8, p99Ms: 5, waits: 400 },
      },
    ]);
    expect(lines).toEqual([
      'Durability cost (primary + 1 replica), 20,000 schedule() calls, 50 in flight: off 40,000 schedule/s, p50 1.20 ms, p99 3.46 ms; ' +
        'durability { replicas: 1 } 30,000 schedule/s (-25.0%), p50 1.80 ms, p99 5.00 ms, 400 WAITs (50.0 calls per WAIT).',
    ]);
  });
});
