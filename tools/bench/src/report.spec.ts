import { describe, expect, it } from '@jest/globals';
import { failedRun, toJsonReport, type BenchReport, type RunResult } from './report.js';
import { runRows } from './summary.js';
import { formatNumber } from './table.js';

function run(overrides: Partial<RunResult>): RunResult {
  return {
    system: 'durable-timeout',
    workload: 'steady 2k/s',
    schedulePerSec: 81234.56,
    firedPerSec: 1999.4,
    lateness: { p50: 1, p99: 3, max: 12 },
    latenessCdf: null,
    bytesPerPending: 140.4,
    bytesPerPendingUuid: 180.6,
    redisCommandsPerFired: 3.14159,
    redisCallsPerFired: 0.456,
    fired: 20_000,
    expected: 20_000,
    duplicates: 0,
    workerCpuUsPerFired: 21.5,
    redisCpuUsPerFired: 12,
    commandMix: 'evalsha 2.00',
    netInPerFired: 300,
    netOutPerFired: 100,
    ...overrides,
  };
}

const IDLE = { system: 'durable-timeout', commandsPerSec: 1.066, busiestWindowPerSec: 1.3, executedPerSec: 5.2, windowMs: 10_000, topics: 4, slotsPerTopic: 16 };

describe('toJsonReport', () => {
  it('carries every figure of the table, units in the names, at the table\'s precision', () => {
    const report: BenchReport = {
      quick: false,
      environment: ['full run'],
      runs: [
        run({ fired: 20_002, duplicates: 2 }),
        run({ system: 'setTimeout (memory)', lateness: null, bytesPerPending: null, bytesPerPendingUuid: null, redisCommandsPerFired: null, redisCallsPerFired: null, redisCpuUsPerFired: null, netInPerFired: null, netOutPerFired: null }),
      ],
      idle: IDLE,
      clusterSpread: [{ node: '127.0.0.1:7000', slots: 5, timeouts: 100 }],
      bullmqSingleAdd: null,
    };
    expect(toJsonReport(report)).toEqual({
      quick: false,
      environment: ['full run'],
      runs: [
        {
          system: 'durable-timeout',
          workload: 'steady 2k/s',
          schedulePerSec: 81235,
          firedPerSec: 1999,
          latenessMs: { p50: 1, p99: 3, max: 12 },
          bytesPerPending: 140,
          bytesPerPendingUuidIds: 181,
          redisCommandsPerFired: 3.14,
          redisCallsPerFired: 0.46,
          workerCpuUsPerFired: 21.5,
          redisCpuUsPerFired: 12,
          netInBytesPerFired: 300,
          netOutBytesPerFired: 100,
          firedDistinct: 20_000,
          expected: 20_000,
          duplicates: 2,
        },
        {
          system: 'setTimeout (memory)',
          workload: 'steady 2k/s',
          schedulePerSec: 81235,
          firedPerSec: 1999,
          latenessMs: { p50: null, p99: null, max: null },
          bytesPerPending: null,
          bytesPerPendingUuidIds: null,
          redisCommandsPerFired: null,
          redisCallsPerFired: null,
          workerCpuUsPerFired: 21.5,
          redisCpuUsPerFired: null,
          netInBytesPerFired: null,
          netOutBytesPerFired: null,
          firedDistinct: 20_000,
          expected: 20_000,
          duplicates: 0,
        },
      ],
      idle: { system: 'durable-timeout', commandsPerSec: 1.07, busiestWindowCommandsPerSec: 1.3, executedCommandsPerSec: 5.2, windowMs: 10_000 },
    });
  });

  it('has a JSON field for every column of the printed table', () => {
    const json = toJsonReport({ quick: true, environment: [], runs: [run({})], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    const row = json.runs[0]!;
    const cells = runRows([run({})])[0]!;
    const figures = [row.schedulePerSec, row.firedPerSec, row.latenessMs.p50, row.latenessMs.p99, row.latenessMs.max, row.bytesPerPending, row.redisCommandsPerFired, row.redisCallsPerFired, row.workerCpuUsPerFired, row.redisCpuUsPerFired];
    expect(cells.slice(2, 2 + figures.length)).toEqual(figures.map((figure, i) => formatNumber(figure, [0, 0, 0, 0, 0, 0, 2, 2, 1, 1][i])));
    expect(cells[cells.length - 1]).toBe(`${formatNumber(row.firedDistinct)}/${formatNumber(row.expected)}`);
  });

  it('keeps the idle key when idle was not measured', () => {
    const json = toJsonReport({ quick: true, environment: [], runs: [], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(json.idle).toEqual({ system: 'durable-timeout', commandsPerSec: null, busiestWindowCommandsPerSec: null, executedCommandsPerSec: null, windowMs: null });
  });

  it('writes a broken run as a row of nulls', () => {
    const json = toJsonReport({ quick: true, environment: [], runs: [failedRun('bullmq', { name: 'burst 10k', count: 10_000 })], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(json.runs).toEqual([
      {
        system: 'bullmq',
        workload: 'burst 10k',
        schedulePerSec: null,
        firedPerSec: null,
        latenessMs: { p50: null, p99: null, max: null },
        bytesPerPending: null,
        bytesPerPendingUuidIds: null,
        redisCommandsPerFired: null,
        redisCallsPerFired: null,
        workerCpuUsPerFired: null,
        redisCpuUsPerFired: null,
        netInBytesPerFired: null,
        netOutBytesPerFired: null,
        firedDistinct: 0,
        expected: 10_000,
        duplicates: 0,
      },
    ]);
  });
});
