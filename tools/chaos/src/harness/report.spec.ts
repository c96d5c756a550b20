import { describe, expect, it } from '@jest/globals';
import { formatTable, jsonReport, testCounts } from './report.js';
import type { ScenarioResult } from './rig.js';

const result = (name: string, pass: boolean): ScenarioResult => ({
  name,
  scheduled: 120,
  lost: pass ? 0 : 2,
  duplicateEffects: 0,
  duplicateDeliveries: 3,
  maxLatenessMs: 45,
  boundMs: pass ? 3000 : null,
  pass,
  failures: pass ? [] : ['lost 2 > 0'],
  notes: ['a note'],
});

describe('report', () => {
  it('writes exactly the fields of the issue, in its shape', () => {
    expect(jsonReport([result('baseline', true)])).toEqual({
      scenarios: [{ name: 'baseline', scheduled: 120, lost: 0, duplicateEffects: 0, duplicateDeliveries: 3, maxLatenessMs: 45, boundMs: 3000, pass: true }],
    });
  });

  it('counts passed and failed scenarios', () => {
    expect(testCounts([result('a', true), result('b', false), result('c', true)])).toEqual({ passed: 2, failed: 1, notRun: 0 });
  });

  it('counts a scenario that could not run apart: neither passed nor failed, and says why', () => {
    const skipped: ScenarioResult = { ...result('worker-partition', false), failures: [], notRun: 'no namespaces' };
    expect(testCounts([result('a', true), skipped])).toEqual({ passed: 1, failed: 0, notRun: 1 });
    const text = formatTable([skipped]);
    expect(text).toMatch(/^worker-partition\s.*\snot run$/m);
    expect(text).toContain('  NOT RUN: no namespaces');
  });

  it('prints one aligned row per scenario, then notes and failures', () => {
    const text = formatTable([result('baseline', true), result('poison', false)]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^scenario\s+scheduled\s+lost\s+dup effects\s+dup deliveries\s+max lateness ms\s+bound ms\s+pass$/);
    expect(lines[2]).toMatch(/^baseline\s+120\s+0\s+0\s+3\s+45\s+3000\s+yes$/);
    expect(lines[3]).toMatch(/^poison\s+120\s+2\s+0\s+3\s+45\s+-\s+NO$/);
    expect(lines[2]!.length).toBe(lines[0]!.length);
    expect(text).toContain('  FAILED: lost 2 > 0');
  });
});
