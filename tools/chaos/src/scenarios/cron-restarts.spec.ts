import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { occurrenceCoverage } from './cron-restarts.js';

const window = { from: 10_000, to: 15_000, everyMs: 1_000 };

describe('occurrenceCoverage', () => {
  it('accounts for a window fired on time, occurrence by occurrence', () => {
    const fired = new Map([10_000, 11_000, 12_000, 13_000, 14_000, 15_000].map((at) => [at, 0]));
    expect(occurrenceCoverage(window, fired)).toEqual({ expected: 6, onTime: 6, caughtUp: 0, coveredByCatchUp: 0, uncovered: [], coveredTwice: [], offGrid: [] });
  });

  it("lets a late run stand for the occurrences it caught up ('once': missed later ones)", () => {
    const fired = new Map([[10_000, 0], [11_000, 3], [15_000, 0]]);
    expect(occurrenceCoverage(window, fired)).toMatchObject({ onTime: 2, caughtUp: 1, coveredByCatchUp: 3, uncovered: [], coveredTwice: [] });
  });

  it('names an occurrence no run accounts for', () => {
    const fired = new Map([[10_000, 0], [11_000, 1], [14_000, 0], [15_000, 0]]);
    expect(occurrenceCoverage(window, fired).uncovered).toEqual([13_000]);
  });

  it('names an occurrence fired although a caught-up run stood for it', () => {
    const fired = new Map([[10_000, 2], [12_000, 0], [13_000, 0], [14_000, 0], [15_000, 0]]);
    expect(occurrenceCoverage(window, fired).coveredTwice).toEqual([12_000]);
  });

  it('sets apart times off the grid or before the window, and ignores runs after it', () => {
    const fired = new Map([[9_000, 0], [10_500, 0], [16_000, 0]]);
    expect(occurrenceCoverage(window, fired)).toMatchObject({ offGrid: [9_000, 10_500], onTime: 0, uncovered: [10_000, 11_000, 12_000, 13_000, 14_000, 15_000] });
  });

  it('matches a model: each occurrence counted as often as runs stand for it', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 4 })), { maxLength: 8 }), (runs) => {
        const fired = new Map(runs.map(([slot, missed]) => [10_000 + slot * 1_000, missed]));
        const model = new Map<number, number>();
        for (let at = window.from; at <= window.to; at += window.everyMs) model.set(at, 0);
        for (const [at, missed] of fired) {
          if (at > window.to) continue;
          for (let k = 0; k <= missed; k += 1) if (model.has(at + k * 1_000)) model.set(at + k * 1_000, model.get(at + k * 1_000)! + 1);
        }
        const coverage = occurrenceCoverage(window, fired);
        expect(coverage.uncovered).toEqual([...model].filter(([, n]) => n === 0).map(([at]) => at));
        expect(coverage.coveredTwice).toEqual([...model].filter(([, n]) => n > 1).map(([at]) => at));
        expect(coverage.onTime + coverage.caughtUp).toBe([...fired.keys()].filter((at) => at <= window.to).length);
      }),
    );
  });
});
