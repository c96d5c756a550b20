import { describe, expect, it } from '@jest/globals';
import { soakPlanOf } from './soak-plan.js';
import { SoakRecorder } from './soak-recorder.js';

describe('SoakRecorder', () => {
  const plan = soakPlanOf(1, 0);
  let now = 0;
  const recorder = (): SoakRecorder => new SoakRecorder(plan, () => now);

  it('counts lateness by ms against the reported due time, else the final one, and empties it at every sample', () => {
    const soak = recorder();
    now = 5_003;
    soak.record('o7', null); // fires, due 5,001
    soak.record('o8', 5_000); // fires, the system says due 5,000
    now = 10_001 + 1;
    soak.record('o6', null); // replaced: due 10,001
    const first = soak.sample({ heapUsed: 10, rss: 20 }, 30);
    expect(first).toMatchObject({ heapUsedBytes: 10, rssBytes: 20, cpuUs: 30, firedTotal: 3, duplicates: 0, unknown: 0, firedAfterCancel: 0 });
    expect(new Map(first.lateness)).toEqual(new Map([[2, 1], [3, 1], [1, 1]]));
    expect(soak.sample({ heapUsed: 0, rss: 0 }, 0).lateness).toEqual([]);
  });

  it('keeps duplicates, unknown ids and paid orders out of the lateness, counted', () => {
    const soak = recorder();
    now = 6_000;
    soak.record('o7', null);
    soak.record('o7', null);
    soak.record('t1', null);
    soak.record('o0', null); // paid: its cancel came late
    const sample = soak.sample({ heapUsed: 0, rss: 0 }, 0);
    expect(sample).toMatchObject({ firedTotal: 1, duplicates: 1, unknown: 1, firedAfterCancel: 1 });
    expect(sample.lateness).toHaveLength(1);
  });
});
