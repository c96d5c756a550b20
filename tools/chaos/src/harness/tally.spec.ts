import { describe, expect, it } from '@jest/globals';
import type { EffectsSnapshot } from './effects-store.js';
import { judge, tally, type Figures } from './tally.js';

function snapshot(parts: Partial<Record<keyof EffectsSnapshot, Record<string, number>>>): EffectsSnapshot {
  const map = (record: Record<string, number> | undefined) => new Map(Object.entries(record ?? {}));
  return {
    deliveries: map(parts.deliveries),
    firstDelivery: map(parts.firstDelivery),
    firstAttempt: map(parts.firstAttempt),
    applied: map(parts.applied),
    effectAt: map(parts.effectAt),
    maxEffectToken: map(parts.maxEffectToken),
    ackedToken: map(parts.ackedToken),
    regressions: map(parts.regressions),
    staleRejected: map(parts.staleRejected),
    repeats: map(parts.repeats),
    failures: map(parts.failures),
  };
}

describe('tally', () => {
  it('counts an acknowledged schedule without effect as lost, and lateness over the others', () => {
    const expected = new Map([['a', 1000], ['b', 2000], ['c', 3000]]);
    const figures = tally(
      expected,
      snapshot({ effectAt: { a: 1250, b: 2900 }, firstDelivery: { a: 1200, b: 2800 }, applied: { a: 1, b: 1 }, deliveries: { a: 1, b: 1 } }),
    );
    expect(figures).toMatchObject({ scheduled: 3, lost: 1, maxLatenessMs: 900, duplicateDeliveries: 0, duplicateEffects: 0, earlyFires: 0 });
  });

  it('counts a run that started before its due time as an early fire', () => {
    const figures = tally(new Map([['a', 1000]]), snapshot({ effectAt: { a: 1001 }, firstDelivery: { a: 999 } }));
    expect(figures.earlyFires).toBe(1);
  });

  it('counts extra runs as duplicate deliveries, and a rerun after an accepted ack as a duplicate effect', () => {
    const figures = tally(
      new Map([['a', 0], ['b', 0]]),
      snapshot({
        effectAt: { a: 5, b: 5 },
        deliveries: { a: 3, b: 2 },
        applied: { a: 1, b: 1 },
        ackedToken: { a: 4, b: 7 },
        maxEffectToken: { a: 9, b: 7 },
        repeats: { a: 2, b: 1 },
      }),
    );
    expect(figures.duplicateDeliveries).toBe(3);
    expect(figures.duplicateEffects).toBe(1);
    expect(figures).toMatchObject({ rerunAfterAck: 1, appliedTwice: 0 });
    expect(figures.absorbedRepeats).toBe(3);
  });

  it('counts an effect applied twice as a duplicate effect', () => {
    expect(tally(new Map([['a', 0]]), snapshot({ effectAt: { a: 1 }, applied: { a: 2 } }))).toMatchObject({ duplicateEffects: 1, appliedTwice: 1, rerunAfterAck: 0 });
  });

  it('counts ids whose first run came on a later attempt as recovered orphans', () => {
    expect(tally(new Map(), snapshot({ firstAttempt: { a: 1, b: 2, c: 3 } })).recoveredOrphans).toBe(2);
  });

  it('sums token regressions and refused stale writes', () => {
    const figures = tally(new Map(), snapshot({ regressions: { a: 1, b: 2 }, staleRejected: { a: 4 } }));
    expect(figures.tokenRegressions).toBe(3);
    expect(figures.staleWritesRefused).toBe(4);
  });
});

describe('judge', () => {
  const clean: Figures = {
    scheduled: 10, lost: 0, duplicateEffects: 0, duplicateDeliveries: 2, maxLatenessMs: 900,
    earlyFires: 0, tokenRegressions: 0, staleWritesRefused: 0, absorbedRepeats: 0, recoveredOrphans: 0,
  };

  it('passes figures within their targets and reports only the targets given', () => {
    expect(judge(clean, { maxLost: 0, maxDuplicateEffects: 0, boundMs: 1000 })).toEqual([]);
  });

  it('names every target that is missed', () => {
    const failures = judge({ ...clean, lost: 1, maxLatenessMs: 1500 }, { maxLost: 0, maxDuplicateDeliveries: 0, boundMs: 1000 });
    expect(failures).toEqual(['lost 1 > 0', 'duplicate deliveries 2 > 0', 'max lateness ms 1500 > 1000']);
  });

  it('always fails early fires, token regressions and failed checks', () => {
    const failures = judge({ ...clean, earlyFires: 1, tokenRegressions: 2 }, {}, [
      { name: 'late ack refused', ok: false, detail: '0 stale events' },
      { name: 'fine', ok: true },
    ]);
    expect(failures).toEqual(['early fires 1 > 0', 'token regressions 2 > 0', 'late ack refused: 0 stale events']);
  });

  it('lets a split-brain scenario allow token regressions it only measures', () => {
    expect(judge({ ...clean, tokenRegressions: 2 }, { maxTokenRegressions: 2 })).toEqual([]);
    expect(judge({ ...clean, tokenRegressions: 3 }, { maxTokenRegressions: 2 })).toEqual(['token regressions 3 > 2']);
  });
});
