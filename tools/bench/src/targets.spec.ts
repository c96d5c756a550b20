import { describe, expect, it } from '@jest/globals';
import { failedRun, type BenchReport, type RunResult } from './report.js';
import { evaluateTargets } from './targets.js';

/** A run of `system` on `workload` with only `figures` measured (the rest as a run that measured nothing). */
function run(system: string, workload: string, figures: Partial<RunResult>): RunResult {
  return { ...failedRun(system, { name: workload, count: 0 }), ...figures };
}

const late = (p99: number) => ({ p50: 0, p99, max: p99 });

function report(engineP99Slow: number, idlePerSec: number): BenchReport {
  return {
    quick: false,
    environment: [],
    runs: [
      // Reported, not targeted: the targets are at 2,000/s, 10,000/s and the burst.
      run('durable-timeout', 'steady 200/s', { lateness: late(900), schedulePerSec: 1_000, bytesPerPending: 900 }),
      run('bullmq', 'steady 200/s', { lateness: late(1), schedulePerSec: 18_000, bytesPerPending: 850 }),
      run('durable-timeout', 'steady 2k/s', { lateness: late(engineP99Slow), schedulePerSec: 90_000, bytesPerPending: 150 }),
      run('bullmq', 'steady 2k/s', { lateness: late(86), schedulePerSec: 18_000, bytesPerPending: 850 }),
      run('durable-timeout', 'steady 10k/s', { lateness: late(0), schedulePerSec: 60_000, bytesPerPending: 140 }),
      run('bullmq', 'steady 10k/s', { lateness: late(227), schedulePerSec: 20_000, bytesPerPending: 800 }),
      run('durable-timeout', 'burst 50k', { firedPerSec: 60_000 }),
      run('bullmq', 'burst 50k', { firedPerSec: 17_000 }),
    ],
    idle: { system: 'durable-timeout', commandsPerSec: idlePerSec, busiestWindowPerSec: idlePerSec, executedPerSec: 4, windowMs: 10_000, topics: 4, slotsPerTopic: 16 },
    clusterSpread: [],
    bullmqSingleAdd: null,
    scheduling: [
      { system: 'durable-timeout', method: 'schedule()', count: 20_000, perSec: 45_000, clientCpuUsPerTimeout: 12, redisCpuUsPerTimeout: 6 },
      { system: 'durable-timeout', method: 'scheduleMany()', count: 20_000, perSec: 60_000, clientCpuUsPerTimeout: 10, redisCpuUsPerTimeout: 5 },
      { system: 'bullmq', method: 'add()', count: 20_000, perSec: 16_000, clientCpuUsPerTimeout: 45, redisCpuUsPerTimeout: 30 },
      { system: 'bullmq', method: 'addBulk()', count: 20_000, perSec: 14_000, clientCpuUsPerTimeout: 36, redisCpuUsPerTimeout: 29 },
    ],
  };
}

describe('evaluateTargets', () => {
  it('passes and fails each target on the ratios of the same run', () => {
    const verdicts = evaluateTargets(report(3, 1.2));
    const byTarget = Object.fromEntries(verdicts.map((v) => [v.target, v.pass]));
    expect(byTarget).toEqual({
      'lateness p99 @ steady 2k/s <= 5 ms': true,
      'lateness p99 @ steady 2k/s >= 10x lower than BullMQ': true,
      'lateness p99 @ steady 10k/s <= 20 ms': true,
      'lateness p99 @ steady 10k/s >= 10x lower than BullMQ': true,
      'burst fired/s >= 3x BullMQ (one worker process)': true,
      'schedule/s >= 4x BullMQ (worst workload)': false,
      'scheduleMany() schedule/s >= 4x BullMQ addBulk()': true,
      'schedule() schedule/s >= 3x BullMQ add() per job': false,
      'bytes per pending <= 1/5 of BullMQ (worst workload)': true,
      'idle cost <= 2 commands/s (4 topics x 16 slots)': true,
    });
  });

  it('fails a lateness above the limit and an idle cost above 2/s', () => {
    const verdicts = evaluateTargets(report(9, 2.5));
    expect(verdicts.find((v) => v.target === 'lateness p99 @ steady 2k/s <= 5 ms')?.pass).toBe(false);
    expect(verdicts.find((v) => v.target === 'lateness p99 @ steady 2k/s >= 10x lower than BullMQ')?.pass).toBe(false);
    expect(verdicts.find((v) => v.target.startsWith('idle'))?.pass).toBe(false);
  });

  it('divides by at least 1 ms so a 0 ms p99 is not an infinite ratio', () => {
    const verdict = evaluateTargets(report(3, 1)).find((v) => v.target === 'lateness p99 @ steady 10k/s >= 10x lower than BullMQ');
    expect(verdict?.measured).toMatch(/^227\.0x/);
  });

  it('rates scheduleMany() against addBulk() and schedule() against add() from the scheduling comparison of the same run', () => {
    const verdicts = evaluateTargets(report(3, 1));
    expect(verdicts.find((v) => v.target.startsWith('scheduleMany()'))?.measured).toBe('4.3x (60,000 vs 14,000/s)');
    expect(verdicts.find((v) => v.target.startsWith('schedule()'))?.measured).toBe('2.8x (45,000 vs 16,000/s)');
  });

  it('says n/a when a figure is missing', () => {
    const verdicts = evaluateTargets({ quick: true, environment: [], runs: [], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(verdicts.every((v) => v.pass === null)).toBe(true);
  });
});
