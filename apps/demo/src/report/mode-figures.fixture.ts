import { emptyTally, type ModeFigures } from './mode-figures.js';

/**
 * Figures of one demo mode for the report's unit tests: a clean durable run of 300 orders, with
 * `overrides` applied.
 */
export function modeFigures(overrides: Partial<ModeFigures>): ModeFigures {
  return {
    mode: 'durable',
    ordersRequested: 300,
    created: 300,
    createFailures: 0,
    paid: 75,
    timedOut: 225,
    stuck: 0,
    otherStatus: 0,
    unreadable: 0,
    duplicateTransitions: 0,
    ordersWithDuplicates: 0,
    worstLatenessMs: 3210,
    medianLatenessMs: 15,
    minLatenessMs: 1,
    onTimePayments: emptyTally(),
    latePayments: { attempted: 15, confirmed: 0, refused: 15, failed: 0 },
    sigterms: 2,
    sigkills: 1,
    forcedKills: 0,
    durationMs: 20_000,
    ...overrides,
  };
}
