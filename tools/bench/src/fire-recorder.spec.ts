import { describe, expect, it } from '@jest/globals';
import { FireRecorder } from './fire-recorder.js';
import { planOf } from './workloads.js';

describe('FireRecorder', () => {
  const plan = planOf({ name: 's', kind: 'steady', count: 3, windowMs: 300 }, 1_000);

  it('measures lateness against the reported due time, else the plan', () => {
    let now = 1_005;
    const recorder = new FireRecorder(() => now);
    recorder.arm(plan);
    recorder.record('t0', null);
    now = 1_150;
    recorder.record('t1', 1_100);
    expect(recorder.complete).toBe(false);
    now = 1_203;
    recorder.record('t2', null);
    expect(recorder.complete).toBe(true);
    expect(recorder.result()).toMatchObject({ lateness: [5, 50, 3], fired: 3, duplicates: 0, unknown: 0, firstFireAt: 1_005, lastFireAt: 1_203 });
  });

  it('counts duplicates and foreign ids apart from lateness', () => {
    const recorder = new FireRecorder(() => 2_000);
    recorder.arm(plan);
    recorder.record('t1', null);
    recorder.record('t1', null);
    recorder.record('t9', null);
    recorder.record('order-1', null);
    expect(recorder.distinct).toBe(1);
    expect(recorder.result()).toMatchObject({ fired: 4, duplicates: 1, unknown: 2 });
  });

  it('forgets an earlier run when armed again', () => {
    const recorder = new FireRecorder(() => 2_000);
    recorder.arm(plan);
    recorder.record('t0', null);
    recorder.arm(plan);
    expect(recorder.result()).toMatchObject({ lateness: [], fired: 0, firstFireAt: null });
  });

  it('keeps the lateness of ids due after the warm-up apart', () => {
    const long = planOf({ name: 's', kind: 'steady', count: 4, windowMs: 2_000 }, 10_000);
    let now = 0;
    const recorder = new FireRecorder(() => now);
    recorder.arm(long);
    for (const [id, at] of [['t0', 10_050], ['t1', 10_502], ['t2', 11_001], ['t3', 11_503]] as const) {
      now = at;
      recorder.record(id, null);
    }
    expect(recorder.result()).toMatchObject({ lateness: [50, 2, 1, 3], latenessAfterWarmUp: [1, 3] });
  });

  it('counts the Redis calls sent since it was armed', () => {
    let calls = 40;
    const recorder = new FireRecorder(() => 0, () => calls);
    recorder.arm(plan);
    calls = 47;
    expect(recorder.result().redisCalls).toBe(7);
  });

  it('records the ids of a warm-up plan by their own prefix', () => {
    const warmUp = planOf({ name: 'w', kind: 'burst', count: 2, windowMs: 0 }, 1_000, 'w');
    const recorder = new FireRecorder(() => 1_000);
    recorder.arm(warmUp);
    recorder.record('w0', null);
    recorder.record('t1', null);
    expect(recorder.result()).toMatchObject({ lateness: [0], unknown: 1 });
  });
});
