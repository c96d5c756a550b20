import { describe, expect, it } from '@jest/globals';
import { failedRun, type BenchReport, type RunResult } from './report.js';
import { evaluateTargets, NOT_MEASURED, type TargetVerdict } from './targets.js';

/** A run of `system` on `workload` with only `figures` measured (the rest as a run that measured nothing). */
function run(system: string, workload: string, figures: Partial<RunResult>): RunResult {
  return { ...failedRun(system, { name: workload, count: 0 }), ...figures };
}

const late = (p99: number, p50 = 0) => ({ p50, p99, max: p99 });

/** The figures of the engine that the tests move; BullMQ's stay put. */
interface EngineFigures {
  p99At2k: number;
  p50At2k: number;
  idlePerSec: number;
  workerCpuAt2k: number;
  redisCpuAt2k: number;
  callsAt2k: number;
  workerCpuAt200: number;
  burstFiredPerSec: number;
  burstRedisCpu: number;
  bytesUuidAt10k: number | null;
  clusterRedisCpu: number;
  scheduleManyPerSec: number;
  scheduleCpu: { client: number; redis: number };
}

const PASSING: EngineFigures = {
  p99At2k: 3,
  p50At2k: 1,
  idlePerSec: 1.2,
  workerCpuAt2k: 70,
  redisCpuAt2k: 50,
  callsAt2k: 0.4,
  workerCpuAt200: 150,
  burstFiredPerSec: 60_000,
  burstRedisCpu: 25,
  bytesUuidAt10k: 190,
  clusterRedisCpu: 28,
  scheduleManyPerSec: 60_000,
  scheduleCpu: { client: 8, redis: 5 },
};

function report(overrides: Partial<EngineFigures> = {}): BenchReport {
  const e = { ...PASSING, ...overrides };
  return {
    quick: false,
    environment: [],
    runs: [
      run('durable-timeout', 'steady 200/s', { lateness: late(900), schedulePerSec: 1_000, bytesPerPending: 900, bytesPerPendingUuid: 1_000, workerCpuUsPerFired: e.workerCpuAt200, redisCpuUsPerFired: 90, redisCallsPerFired: 1.4 }),
      run('bullmq', 'steady 200/s', { lateness: late(1), schedulePerSec: 18_000, bytesPerPending: 850, bytesPerPendingUuid: 950, workerCpuUsPerFired: 200, redisCpuUsPerFired: 120, redisCallsPerFired: 4 }),
      run('durable-timeout', 'steady 2k/s', { lateness: late(e.p99At2k, e.p50At2k), schedulePerSec: 90_000, bytesPerPending: 150, bytesPerPendingUuid: 180, workerCpuUsPerFired: e.workerCpuAt2k, redisCpuUsPerFired: e.redisCpuAt2k, redisCallsPerFired: e.callsAt2k }),
      run('bullmq', 'steady 2k/s', { lateness: late(86), schedulePerSec: 18_000, bytesPerPending: 850, bytesPerPendingUuid: 1_000, workerCpuUsPerFired: 100, redisCpuUsPerFired: 100, redisCallsPerFired: 3.5 }),
      run('durable-timeout', 'steady 10k/s', { lateness: late(0, 0), schedulePerSec: 60_000, bytesPerPending: 140, bytesPerPendingUuid: e.bytesUuidAt10k, workerCpuUsPerFired: 40, redisCpuUsPerFired: 50, redisCallsPerFired: 0.2 }),
      run('bullmq', 'steady 10k/s', { lateness: late(227), schedulePerSec: 20_000, bytesPerPending: 800, bytesPerPendingUuid: 1_000, workerCpuUsPerFired: 80, redisCpuUsPerFired: 125, redisCallsPerFired: 3 }),
      run('durable-timeout', 'burst 50k', { firedPerSec: e.burstFiredPerSec, redisCpuUsPerFired: e.burstRedisCpu }),
      run('bullmq', 'burst 50k', { firedPerSec: 17_000, redisCpuUsPerFired: 125 }),
      run('durable-timeout (cluster, 3 masters)', 'burst 50k', { firedPerSec: 30_000, redisCpuUsPerFired: e.clusterRedisCpu }),
    ],
    idle: { system: 'durable-timeout', commandsPerSec: e.idlePerSec, busiestWindowPerSec: e.idlePerSec, executedPerSec: 4, windowMs: 10_000, topics: 4, slotsPerTopic: 16 },
    clusterSpread: [],
    bullmqSingleAdd: null,
    scheduling: [
      { system: 'durable-timeout', method: 'schedule()', count: 20_000, perSec: 45_000, clientCpuUsPerTimeout: e.scheduleCpu.client, redisCpuUsPerTimeout: e.scheduleCpu.redis },
      { system: 'durable-timeout', method: 'scheduleMany()', count: 20_000, perSec: e.scheduleManyPerSec, clientCpuUsPerTimeout: 10, redisCpuUsPerTimeout: 5 },
      { system: 'bullmq', method: 'add()', count: 20_000, perSec: 16_000, clientCpuUsPerTimeout: 45, redisCpuUsPerTimeout: 30 },
      { system: 'bullmq', method: 'addBulk()', count: 20_000, perSec: 14_000, clientCpuUsPerTimeout: 36, redisCpuUsPerTimeout: 29 },
    ],
  };
}

const verdictOf = (verdicts: readonly TargetVerdict[], target: string): TargetVerdict => {
  const verdict = verdicts.find((v) => v.target === target);
  if (!verdict) throw new Error(`no target "${target}" among: ${verdicts.map((v) => v.target).join(' | ')}`);
  return verdict;
};

describe('evaluateTargets', () => {
  it('lists every target with its verdict, the reported figures with none', () => {
    const byTarget = Object.fromEntries(evaluateTargets(report()).map((v) => [v.target, v.pass]));
    expect(byTarget).toEqual({
      'worker CPU per fired @ steady 2k/s <= 0.7x BullMQ': true,
      'Redis CPU per fired @ steady 2k/s <= 0.5x BullMQ': true,
      'Redis calls per fired @ steady 2k/s <= 0.5': true,
      'worker CPU per fired @ steady 200/s <= 1.0x BullMQ': true,
      'Redis CPU per fired @ steady 200/s, vs BullMQ': null,
      'Redis calls per fired @ steady 200/s': null,
      'worker CPU per fired @ steady 10k/s, vs BullMQ': null,
      'Redis CPU per fired @ steady 10k/s, vs BullMQ': null,
      'Redis calls per fired @ steady 10k/s': null,
      'lateness p99 @ steady 2k/s <= 5 ms': true,
      'lateness p99 @ steady 2k/s >= 10x lower than BullMQ': true,
      'lateness p50 @ steady 2k/s <= 2 ms': true,
      'lateness p99 @ steady 10k/s <= 10 ms': true,
      'lateness p99 @ steady 10k/s >= 10x lower than BullMQ': true,
      'lateness p50 @ steady 10k/s <= 2 ms': true,
      'burst 50k fired/s >= 3x BullMQ (one worker process)': true,
      'burst 50k Redis CPU per fired <= 1/4 of BullMQ': true,
      "burst 50k Redis CPU per fired on a 3-master cluster <= 1.15x one server's": true,
      'burst 50k fired/s on a 3-master cluster (one worker process)': null,
      'bytes per pending <= 1/5 of BullMQ (worst workload)': true,
      'bytes per pending with 36-character UUID ids <= 1/5 of BullMQ (worst workload)': true,
      'scheduleMany() schedule/s >= 4x BullMQ addBulk()': true,
      'scheduleMany() client + Redis CPU per scheduled timeout >= 5x less than BullMQ addBulk()': false,
      'schedule() schedule/s >= 3x BullMQ add() per job': false,
      'schedule() client + Redis CPU per scheduled timeout >= 5x less than BullMQ add() per job': true,
      'idle cost <= 2 commands/s (4 topics x 16 slots)': true,
    });
  });

  it('marks the figures without a limit as reported, with the figures of both systems', () => {
    const verdicts = evaluateTargets(report());
    expect(verdictOf(verdicts, 'worker CPU per fired @ steady 10k/s, vs BullMQ')).toEqual({
      target: 'worker CPU per fired @ steady 10k/s, vs BullMQ',
      measured: '0.50x (40.0 vs 80.0 us)',
      pass: null,
      reportOnly: true,
    });
    expect(verdictOf(verdicts, 'Redis calls per fired @ steady 200/s').measured).toBe('1.40 (BullMQ 4.00)');
    expect(verdictOf(verdicts, 'burst 50k fired/s on a 3-master cluster (one worker process)')).toMatchObject({ measured: '30,000/s', pass: null, reportOnly: true });
    expect(verdicts.filter((v) => v.pass !== null).every((v) => !v.reportOnly)).toBe(true);
  });

  it('holds worker CPU, Redis CPU and Redis calls per fired at 2,000/s to their limits', () => {
    const verdicts = evaluateTargets(report({ workerCpuAt2k: 71, redisCpuAt2k: 51, callsAt2k: 0.51 }));
    expect(verdictOf(verdicts, 'worker CPU per fired @ steady 2k/s <= 0.7x BullMQ')).toMatchObject({ measured: '0.71x (71.0 vs 100.0 us)', pass: false });
    expect(verdictOf(verdicts, 'Redis CPU per fired @ steady 2k/s <= 0.5x BullMQ')).toMatchObject({ measured: '0.51x (51.0 vs 100.0 us)', pass: false });
    expect(verdictOf(verdicts, 'Redis calls per fired @ steady 2k/s <= 0.5')).toMatchObject({ measured: '0.51 (BullMQ 3.50)', pass: false });
    expect(verdictOf(evaluateTargets(report()), 'Redis calls per fired @ steady 2k/s <= 0.5').pass).toBe(true);
  });

  it('holds worker CPU per fired at 200/s to BullMQ\'s', () => {
    expect(verdictOf(evaluateTargets(report({ workerCpuAt200: 200 })), 'worker CPU per fired @ steady 200/s <= 1.0x BullMQ').pass).toBe(true);
    expect(verdictOf(evaluateTargets(report({ workerCpuAt200: 201 })), 'worker CPU per fired @ steady 200/s <= 1.0x BullMQ').pass).toBe(false);
  });

  it('fails a lateness p99 or p50 above its limit and an idle cost above 2/s', () => {
    const verdicts = evaluateTargets(report({ p99At2k: 9, p50At2k: 3, idlePerSec: 2.5 }));
    expect(verdictOf(verdicts, 'lateness p99 @ steady 2k/s <= 5 ms').pass).toBe(false);
    expect(verdictOf(verdicts, 'lateness p99 @ steady 2k/s >= 10x lower than BullMQ').pass).toBe(false);
    expect(verdictOf(verdicts, 'lateness p50 @ steady 2k/s <= 2 ms')).toMatchObject({ measured: '3 ms', pass: false });
    expect(verdicts.find((v) => v.target.startsWith('idle'))?.pass).toBe(false);
    expect(verdictOf(evaluateTargets(report({ p50At2k: 2 })), 'lateness p50 @ steady 2k/s <= 2 ms').pass).toBe(true);
  });

  it('holds the p99 at 10,000/s to 10 ms', () => {
    const at = (p99: number) => {
      const r = report();
      r.runs = r.runs.map((x) => (x.system === 'durable-timeout' && x.workload === 'steady 10k/s' ? { ...x, lateness: late(p99) } : x));
      return verdictOf(evaluateTargets(r), 'lateness p99 @ steady 10k/s <= 10 ms').pass;
    };
    expect(at(10)).toBe(true);
    expect(at(11)).toBe(false);
  });

  it('divides by at least 1 ms so a 0 ms p99 is not an infinite ratio', () => {
    expect(verdictOf(evaluateTargets(report()), 'lateness p99 @ steady 10k/s >= 10x lower than BullMQ').measured).toMatch(/^227\.0x/);
  });

  it('rates the burst against BullMQ in fired/s and Redis CPU per fired', () => {
    const passing = evaluateTargets(report());
    expect(verdictOf(passing, 'burst 50k fired/s >= 3x BullMQ (one worker process)').measured).toBe('3.5x (60,000 vs 17,000/s)');
    expect(verdictOf(passing, 'burst 50k Redis CPU per fired <= 1/4 of BullMQ').measured).toBe('1/5.00 (25.0 vs 125.0 us)');
    const failing = evaluateTargets(report({ burstFiredPerSec: 50_000, burstRedisCpu: 32 }));
    expect(verdictOf(failing, 'burst 50k fired/s >= 3x BullMQ (one worker process)').pass).toBe(false);
    expect(verdictOf(failing, 'burst 50k Redis CPU per fired <= 1/4 of BullMQ')).toMatchObject({ measured: '1/3.91 (32.0 vs 125.0 us)', pass: false });
  });

  it("rates the cluster's Redis CPU per fired in the burst against one server's", () => {
    const target = "burst 50k Redis CPU per fired on a 3-master cluster <= 1.15x one server's";
    expect(verdictOf(evaluateTargets(report({ burstRedisCpu: 25, clusterRedisCpu: 28 })), target)).toMatchObject({ measured: '1.12x (28.0 vs 25.0 us)', pass: true });
    expect(verdictOf(evaluateTargets(report({ burstRedisCpu: 25, clusterRedisCpu: 29 })), target)).toMatchObject({ measured: '1.16x (29.0 vs 25.0 us)', pass: false });
  });

  it('holds bytes per pending to 1/5 of BullMQ\'s at the worst workload but 200/s, with short ids and with UUID ids', () => {
    const target = 'bytes per pending with 36-character UUID ids <= 1/5 of BullMQ (worst workload)';
    expect(verdictOf(evaluateTargets(report()), 'bytes per pending <= 1/5 of BullMQ (worst workload)').measured).toBe('1/5.67 (150 vs 850 B)');
    expect(verdictOf(evaluateTargets(report({ bytesUuidAt10k: 200 })), target)).toMatchObject({ measured: '1/5.00 (200 vs 1,000 B)', pass: true });
    expect(verdictOf(evaluateTargets(report({ bytesUuidAt10k: 201 })), target)).toMatchObject({ measured: '1/4.98 (201 vs 1,000 B)', pass: false });
    // Measured at one workload only: the share of that workload.
    expect(verdictOf(evaluateTargets(report({ bytesUuidAt10k: null })), target).measured).toBe('1/5.56 (180 vs 1,000 B)');
  });

  it('rates scheduleMany() against addBulk() and schedule() against add() from the scheduling comparison of the same run', () => {
    const verdicts = evaluateTargets(report());
    expect(verdictOf(verdicts, 'scheduleMany() schedule/s >= 4x BullMQ addBulk()').measured).toBe('4.3x (60,000 vs 14,000/s)');
    expect(verdictOf(verdicts, 'schedule() schedule/s >= 3x BullMQ add() per job').measured).toBe('2.8x (45,000 vs 16,000/s)');
    expect(verdictOf(evaluateTargets(report({ scheduleManyPerSec: 55_000 })), 'scheduleMany() schedule/s >= 4x BullMQ addBulk()').pass).toBe(false);
  });

  it('rates client + Redis CPU per scheduled timeout against BullMQ, 5x less to pass', () => {
    const target = 'schedule() client + Redis CPU per scheduled timeout >= 5x less than BullMQ add() per job';
    expect(verdictOf(evaluateTargets(report({ scheduleCpu: { client: 10, redis: 5 } })), target)).toMatchObject({ measured: '5.0x (15.0 vs 75.0 us)', pass: true });
    expect(verdictOf(evaluateTargets(report({ scheduleCpu: { client: 10, redis: 6 } })), target)).toMatchObject({ measured: '4.7x (16.0 vs 75.0 us)', pass: false });
    expect(verdictOf(evaluateTargets(report()), 'scheduleMany() client + Redis CPU per scheduled timeout >= 5x less than BullMQ addBulk()')).toMatchObject({
      measured: '4.3x (15.0 vs 65.0 us)',
      pass: false,
    });
  });

  it('says not measured, with no verdict, when a figure is missing', () => {
    const verdicts = evaluateTargets({ quick: true, environment: [], runs: [], idle: null, clusterSpread: [], bullmqSingleAdd: null });
    expect(verdicts.length).toBe(26);
    expect(verdicts.every((v) => v.pass === null && v.measured === NOT_MEASURED)).toBe(true);
  });

  it('says not measured for the targets against BullMQ and the cluster in a run of the engine alone', () => {
    const engineOnly = report();
    engineOnly.runs = engineOnly.runs.filter((r) => r.system === 'durable-timeout');
    engineOnly.scheduling = undefined;
    const verdicts = evaluateTargets(engineOnly);
    expect(verdictOf(verdicts, 'worker CPU per fired @ steady 2k/s <= 0.7x BullMQ')).toMatchObject({ measured: NOT_MEASURED, pass: null });
    expect(verdictOf(verdicts, 'burst 50k Redis CPU per fired <= 1/4 of BullMQ')).toMatchObject({ measured: NOT_MEASURED, pass: null });
    expect(verdictOf(verdicts, "burst 50k Redis CPU per fired on a 3-master cluster <= 1.15x one server's")).toMatchObject({ measured: NOT_MEASURED, pass: null });
    expect(verdictOf(verdicts, 'scheduleMany() client + Redis CPU per scheduled timeout >= 5x less than BullMQ addBulk()').pass).toBeNull();
    // What needs the engine alone is still judged.
    expect(verdictOf(verdicts, 'Redis calls per fired @ steady 2k/s <= 0.5')).toMatchObject({ measured: '0.40', pass: true });
    expect(verdictOf(verdicts, 'lateness p99 @ steady 2k/s <= 5 ms').pass).toBe(true);
  });
});
