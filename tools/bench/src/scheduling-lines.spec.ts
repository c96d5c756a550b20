import { describe, expect, it } from '@jest/globals';
import type { SchedulingFigure } from './scheduling-compare.js';
import { schedulingLines } from './summary.js';

const figure = (system: SchedulingFigure['system'], method: string, perSec: number, client: number, redis: number): SchedulingFigure => ({
  system,
  method,
  count: 20_000,
  perSec,
  clientCpuUsPerTimeout: client,
  redisCpuUsPerTimeout: redis,
});

describe('schedulingLines', () => {
  it('gives one line per method, then the ratios of bulk calls and of single calls', () => {
    const lines = schedulingLines([
      figure('durable-timeout', 'schedule()', 30_000, 20, 6),
      figure('durable-timeout', 'scheduleMany()', 50_000, 10, 4),
      figure('bullmq', 'add()', 10_000, 50, 30),
      figure('bullmq', 'addBulk()', 12_500, 40, 32),
    ]);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toBe('Scheduling 20,000 timeouts, durable-timeout scheduleMany(): 50,000 schedule/s, client CPU 10.0 us and Redis CPU 4.0 us per timeout.');
    expect(lines[4]).toBe('scheduleMany() vs addBulk(): 4.00x schedule/s, 4.00x less client CPU, 8.00x less Redis CPU per timeout.');
    expect(lines[5]).toBe('schedule() vs add(): 3.00x schedule/s, 2.50x less client CPU, 5.00x less Redis CPU per timeout.');
  });

  it('leaves out a ratio whose two methods did not both run', () => {
    expect(schedulingLines([figure('durable-timeout', 'scheduleMany()', 50_000, 10, 4)])).toHaveLength(1);
  });
});
