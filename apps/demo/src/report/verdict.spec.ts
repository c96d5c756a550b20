import { describe, expect, it } from '@jest/globals';
import type { ModeFigures } from './mode-figures.js';
import { modeFigures } from './mode-figures.fixture.js';
import { judge } from './verdict.js';

/** A clean durable run whose worst lateness is well inside its bound. */
const figures = (overrides: Partial<ModeFigures>) => modeFigures({ worstLatenessMs: 900, ...overrides });

const legacy = figures({ mode: 'legacy', stuck: 120, timedOut: 105 });

describe('judge', () => {
  it('passes a clean durable run and names the legacy stuck orders', () => {
    const verdict = judge([legacy, figures({})]);
    expect(verdict.ok).toBe(true);
    expect(verdict.line).toMatch(/^PASS/);
    expect(verdict.line).toContain('2 SIGTERM and 1 SIGKILL');
    expect(verdict.line).toContain('120 of 300 orders stuck');
    expect(verdict.notes).toEqual([]);
  });

  it.each([
    ['stuck orders', { stuck: 3 }, '3 order(s) stuck in PENDING_PAYMENT'],
    ['duplicate transitions', { duplicateTransitions: 2 }, '2 duplicate transition(s)'],
    ['unreadable orders', { unreadable: 4 }, '4 order(s) could not be read back'],
    ['no orders', { created: 0 }, 'no order was created'],
  ])('fails a durable run with %s', (_label, overrides, text) => {
    const verdict = judge([legacy, figures(overrides)]);
    expect(verdict.ok).toBe(false);
    expect(verdict.line).toMatch(/^FAIL/);
    expect(verdict.line).toContain(text);
  });

  it('fails when the durable mode is missing', () => {
    expect(judge([legacy]).ok).toBe(false);
  });

  it('only notes a legacy run that lost nothing', () => {
    const verdict = judge([figures({ mode: 'legacy', stuck: 0 }), figures({})]);
    expect(verdict.ok).toBe(true);
    expect(verdict.notes.join(' ')).toMatch(/--timeout-ms/);
  });

  it('notes a late payment that confirmed a timed-out order', () => {
    const verdict = judge([legacy, figures({ latePayments: { attempted: 3, confirmed: 1, refused: 2, failed: 0 } })]);
    expect(verdict.notes.join(' ')).toMatch(/durable: 1 late payment/);
  });

  it('notes instances that had to be killed after SIGTERM', () => {
    const verdict = judge([figures({ mode: 'legacy', stuck: 5, forcedKills: 2 }), figures({})]);
    expect(verdict.ok).toBe(true);
    expect(verdict.notes).toEqual(['legacy: 2 instance(s) did not exit after SIGTERM and were killed.']);
  });
});
