import { describe, expect, it } from '@jest/globals';
import { failedRun, toJsonReport, type BenchReport, type RunResult } from './report.js';

function run(overrides: Partial<RunResult>): RunResult {
  return {
    system: 'durable-timeout',
    workload: 'steady 2k/s',
    schedulePerSec: 81234.56,
    firedPerSec: 1999.4,
    lateness: { p50: 1, p99: 3, max: 12 },
    bytesPerPending: 140.4,
    redisCommandsPerFired: 3.14159,
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

describe('toJsonReport', () => {
  it('writes exactly the shape of issue 5, rounded', () => {
    const report: BenchReport = {
      quick: false,
      environment: [],
      runs: [run({}), run({ system: 'setTimeout (memory)', lateness: null, bytesPerPending: null, redisCommandsPerFired: null })],
      idle: { system: 'durable-timeout', commandsPerSec: 1.066, busiestWindowPerSec: 1.3, executedPerSec: 5.2, windowMs: 10_000, topics: 4, slotsPerTopic: 16 },
      clusterSpread: [{ node: '127.0.0.1:7000', slots: 5, timeouts: 100 }],
      bullmqSingleAdd: null,
    };
    expect(toJsonReport(report)).toEqual({
      runs: [
        {
          system: 'durable-timeout',
          workload: 'steady 2k/s',
          schedulePerSec: 81235,
          firedPerSec: 1999,
          lateness: { p50: 1, p99: 3, max: 12 },
          bytesPerPending: 140,
          redisCommandsPerFired: 3.14,
        },
        {
          system: 'setTimeout (memory)',
          workload: 'steady 2k/s',
          schedulePerSec: 81235,
          firedPerSec: 1999,
          lateness: { p50: null, p99: null, max: null },
          bytesPerPending: null,
          redisCommandsPerFired: null,
        },
      ],
      idle: { system: 'durable-timeout', commandsPerSec: 1.07 },
    });
  });

  it('keeps the idle key when idle was not measured', () => {
    const json = toJsonReport({ quick: true, environment: [], runs: [], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(json).toEqual({ runs: [], idle: { system: 'durable-timeout', commandsPerSec: null } });
  });

  it('writes a broken run as a row of nulls', () => {
    const json = toJsonReport({ quick: true, environment: [], runs: [failedRun('bullmq', { name: 'burst 10k', count: 10_000 })], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(json.runs).toEqual([
      { system: 'bullmq', workload: 'burst 10k', schedulePerSec: null, firedPerSec: null, lateness: { p50: null, p99: null, max: null }, bytesPerPending: null, redisCommandsPerFired: null },
    ]);
  });
});
