import type { ModeFigures } from './mode-figures.js';

/** The demo's conclusion: `ok` decides the exit code. */
export interface Verdict {
  ok: boolean;
  /** One line for the reader. */
  line: string;
  /** Extra remarks worth a line each (nothing that fails the run). */
  notes: string[];
}

/**
 * Judges the run. The durable mode must leave no order stuck in PENDING_PAYMENT, no duplicate
 * transition and no order unread; the legacy mode is expected to leave stuck orders, and only a
 * note says so when it did not (its timers happened to fire before the restarts).
 */
export function judge(modes: ModeFigures[]): Verdict {
  const durable = modes.find((figures) => figures.mode === 'durable');
  const legacy = modes.find((figures) => figures.mode === 'legacy');
  const notes: string[] = [];
  if (legacy && legacy.stuck === 0) {
    notes.push(
      'The legacy mode lost no timer this time: every deadline fell before its instance restarted. ' +
        'Run again with a longer --timeout-ms to see the failure.',
    );
  }
  for (const figures of modes) {
    if (figures.latePayments.confirmed > 0) {
      notes.push(
        `${figures.mode}: ${figures.latePayments.confirmed} late payment(s) confirmed an order that had already timed out.`,
      );
    }
    if (figures.forcedKills > 0) {
      notes.push(`${figures.mode}: ${figures.forcedKills} instance(s) did not exit after SIGTERM and were killed.`);
    }
  }
  if (!durable) return { ok: false, line: 'FAIL: the durable mode did not run.', notes };

  const problems: string[] = [];
  if (durable.created === 0) problems.push('no order was created');
  if (durable.stuck > 0) problems.push(`${durable.stuck} order(s) stuck in PENDING_PAYMENT`);
  if (durable.duplicateTransitions > 0) problems.push(`${durable.duplicateTransitions} duplicate transition(s)`);
  if (durable.unreadable > 0) problems.push(`${durable.unreadable} order(s) could not be read back`);
  if (problems.length > 0) return { ok: false, line: `FAIL: the durable mode left ${problems.join(', ')}.`, notes };

  const restarts = `${durable.sigterms} SIGTERM and ${durable.sigkills} SIGKILL`;
  const legacyPart = legacy
    ? ` The legacy in-memory timers left ${legacy.stuck} of ${legacy.created} orders stuck in PENDING_PAYMENT.`
    : '';
  return {
    ok: true,
    line: `PASS: durable mode: 0 stuck, 0 duplicate transitions across ${restarts}.${legacyPart}`,
    notes,
  };
}
