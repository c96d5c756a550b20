import { PAYMENT_DELAY_MS, ACT_AFTER_MS, REPLACE_EXTRA_MS, SOAK_FIRED_PER_SEC, SOAK_LEAD_MS, SOAK_MIX, SOAK_ORDERS_PER_SEC } from './soak-plan.js';
import type { ShortRunFigures, SoakRun } from './soak.js';
import { GROWTH_SKIP_MS, NOISE_STANDARD_ERRORS, type Growth } from './soak-stats.js';
import { formatNumber, renderTable } from './table.js';

/** A growth as `+1.2 ± 0.4 MB/h flat`. */
export function describeGrowth(growth: Growth): string {
  if (growth.bytesPerHour === null || growth.noiseBytesPerHour === null) return growth.verdict;
  const sign = growth.bytesPerHour >= 0 ? '+' : '-';
  return `${sign}${formatNumber(Math.abs(growth.bytesPerHour) / 1e6, 2)} ± ${formatNumber(growth.noiseBytesPerHour / 1e6, 2)} MB/h ${growth.verdict}`;
}

function cpuBeside(soak: number | null, short: number | null | undefined, shortRan: boolean): string {
  return `${formatNumber(soak, 1)} (short ${shortRan ? formatNumber(short, 1) : 'did not run'})`;
}

function verdictOf(pass: boolean | null): string {
  return pass === null ? 'not measured' : pass ? 'PASS' : 'FAIL';
}

/** The soak's tables: one row per system with the growth and lateness verdicts and CPU, then p99 per minute, then notes. */
export function renderSoakReport(runs: readonly SoakRun[]): string {
  const summary = renderTable(
    [
      { header: 'system' },
      { header: 'fired/s', align: 'right' },
      { header: 'worker heap growth' },
      { header: 'worker RSS growth' },
      { header: 'Redis used_memory growth' },
      { header: 'lateness p99 per minute' },
      { header: 'worker CPU us / fired' },
      { header: 'Redis CPU us / fired' },
    ],
    runs.map((run) => [
      run.system,
      formatNumber(run.firedPerSec),
      describeGrowth(run.growth.workerHeapUsed),
      describeGrowth(run.growth.workerRss),
      describeGrowth(run.growth.redisUsedMemory),
      `worst ${formatNumber(run.lateness.worstMinuteP99Ms)} ms (<= ${run.lateness.limitMs}: ${verdictOf(run.lateness.pass)})`,
      cpuBeside(run.workerCpuUsPerFired, run.shortRun?.workerCpuUsPerFired, run.shortRun !== null),
      cpuBeside(run.redisCpuUsPerFired, run.shortRun?.redisCpuUsPerFired, run.shortRun !== null),
    ]),
  );
  const minutes = Math.max(0, ...runs.map((run) => run.latenessByMinute.length));
  const perMinute = renderTable(
    [{ header: 'minute', align: 'right' }, ...runs.map((run) => ({ header: `${run.system} p99 ms (fired/s)`, align: 'right' as const }))],
    Array.from({ length: minutes }, (_, i) => [
      String(i + 1),
      ...runs.map((run) => {
        const minute = run.latenessByMinute[i];
        return minute ? `${formatNumber(minute.p99Ms)} (${formatNumber(minute.fired / 60)})` : '-';
      }),
    ]),
  );
  const notes = runs.map(
    (run) =>
      `${run.system}: ${formatNumber(run.firedInWindow)} fired in the window, p99 over it ${formatNumber(run.lateness.windowP99Ms)} ms; ` +
      `duplicates ${run.duplicates}, unknown ids ${run.unknown}, paid orders fired (cancel late) ${run.firedAfterCancel}; ` +
      `scheduler lag max ${formatNumber(run.schedulerMaxLagMs)} ms, failed calls ${run.schedulerFailedCalls}`,
  );
  return [
    `Soak: ${runs[0]?.minutes ?? 0} min per system at ${formatNumber(SOAK_FIRED_PER_SEC)} fired/s (${formatNumber(SOAK_ORDERS_PER_SEC)} orders/s; of every 10: ${SOAK_MIX.paid} paid, ${SOAK_MIX.replaced} replaced, ${SOAK_MIX.fires} fire)`,
    `Growth: least-squares slope over the samples after the first minute; flat when within ${NOISE_STANDARD_ERRORS} standard errors of the slope of zero (the ± figure).`,
    '',
    summary,
    '',
    perMinute,
    '',
    ...notes,
  ].join('\n');
}

const rounded = (value: number | null, digits = 0): number | null => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);

function jsonGrowth(growth: Growth) {
  return { bytesPerHour: rounded(growth.bytesPerHour), noiseBytesPerHour: rounded(growth.noiseBytesPerHour), samples: growth.samples, verdict: growth.verdict };
}

function jsonShort(short: ShortRunFigures | null) {
  return short === null
    ? { ran: false, workerCpuUsPerFired: null, redisCpuUsPerFired: null, latenessP99Ms: null }
    : { ran: true, workerCpuUsPerFired: rounded(short.workerCpuUsPerFired, 1), redisCpuUsPerFired: rounded(short.redisCpuUsPerFired, 1), latenessP99Ms: short.latenessP99Ms };
}

/** The JSON file of a soak (`--soak MINUTES --json FILE`): the set-up, then every figure of every system, units in the names. */
export function toSoakJson(runs: readonly SoakRun[], environment: readonly string[]) {
  return {
    soak: {
      minutesPerSystem: runs[0]?.minutes ?? null,
      firedPerSec: SOAK_FIRED_PER_SEC,
      ordersPerSec: SOAK_ORDERS_PER_SEC,
      mixPerTenOrders: { ...SOAK_MIX },
      paymentDelayMs: PAYMENT_DELAY_MS,
      cancelOrReplaceAfterMs: ACT_AFTER_MS,
      replaceExtraDelayMs: REPLACE_EXTRA_MS,
      leadInMs: SOAK_LEAD_MS,
      growthSkipsFirstMs: GROWTH_SKIP_MS,
      flatWithinStandardErrors: NOISE_STANDARD_ERRORS,
    },
    environment,
    systems: runs.map((run) => ({
      system: run.system,
      minutes: run.minutes,
      firedInWindow: run.firedInWindow,
      firedPerSec: rounded(run.firedPerSec),
      growth: { workerHeapUsed: jsonGrowth(run.growth.workerHeapUsed), workerRss: jsonGrowth(run.growth.workerRss), redisUsedMemory: jsonGrowth(run.growth.redisUsedMemory) },
      latenessP99PerMinute: { limitMs: run.lateness.limitMs, worstMinuteP99Ms: run.lateness.worstMinuteP99Ms, minutesOver: run.lateness.minutesOver, pass: run.lateness.pass, windowP99Ms: run.lateness.windowP99Ms },
      latenessByMinute: run.latenessByMinute,
      workerCpuUsPerFired: rounded(run.workerCpuUsPerFired, 1),
      redisCpuUsPerFired: rounded(run.redisCpuUsPerFired, 1),
      shortRun: jsonShort(run.shortRun),
      duplicates: run.duplicates,
      unknownIds: run.unknown,
      paidOrdersFired: run.firedAfterCancel,
      schedulerMaxLagMs: run.schedulerMaxLagMs,
      schedulerFailedCalls: run.schedulerFailedCalls,
      samples: run.samples,
    })),
  };
}
