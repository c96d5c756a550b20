import type { ScenarioResult } from './rig.js';

/** The JSON report of a run (`npm run chaos -- --json FILE`): the figures of each scenario and whether it passed. */
export function jsonReport(results: readonly ScenarioResult[]) {
  return {
    scenarios: results.map(({ name, scheduled, lost, duplicateEffects, duplicateDeliveries, maxLatenessMs, boundMs, pass }) => ({
      name,
      scheduled,
      lost,
      duplicateEffects,
      duplicateDeliveries,
      maxLatenessMs,
      boundMs,
      pass,
    })),
  };
}

/**
 * Scenario counts for the test runner's TEST_RESULT_FILE. A scenario that could not run on this
 * machine is neither passed nor failed: it is counted apart (it fails the run only when the
 * scenario itself judged that the machine should have run it, by failing instead).
 */
export function testCounts(results: readonly ScenarioResult[]): { passed: number; failed: number; notRun: number } {
  const passed = results.filter((result) => result.pass).length;
  const notRun = results.filter((result) => !result.pass && result.notRun !== undefined).length;
  return { passed, failed: results.length - passed - notRun, notRun };
}

/** The results as an aligned text table (one row per scenario), then each scenario's notes and failures. */
export function formatTable(results: readonly ScenarioResult[]): string {
  const header = ['scenario', 'scheduled', 'lost', 'dup effects', 'dup deliveries', 'max lateness ms', 'bound ms', 'pass'];
  const rows = results.map((result) => [
    result.name,
    String(result.scheduled),
    String(result.lost),
    String(result.duplicateEffects),
    String(result.duplicateDeliveries),
    String(result.maxLatenessMs),
    result.boundMs === null ? '-' : String(result.boundMs),
    result.pass ? 'yes' : result.notRun !== undefined ? 'not run' : 'NO',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  const out = [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)];
  for (const result of results) {
    out.push('', `${result.name}:`);
    if (result.notRun !== undefined) out.push(`  NOT RUN: ${result.notRun}`);
    for (const note of result.notes) out.push(`  ${note}`);
    for (const failure of result.failures) out.push(`  FAILED: ${failure}`);
  }
  return out.join('\n');
}
