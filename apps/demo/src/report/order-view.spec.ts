import { describe, expect, it } from '@jest/globals';
import { parseOrderView, toEpochMs } from './order-view.js';

describe('toEpochMs', () => {
  it('reads ISO dates, epoch numbers and numeric strings', () => {
    expect(toEpochMs('2026-01-01T00:00:01.500Z')).toBe(Date.UTC(2026, 0, 1, 0, 0, 1, 500));
    expect(toEpochMs(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(toEpochMs('1700000000123')).toBe(1_700_000_000_123);
  });

  it('gives undefined for anything else', () => {
    expect(toEpochMs('tomorrow-ish')).toBeUndefined();
    expect(toEpochMs('')).toBeUndefined();
    expect(toEpochMs(Number.NaN)).toBeUndefined();
    expect(toEpochMs(undefined)).toBeUndefined();
  });
});

describe('parseOrderView', () => {
  const valid = {
    id: 'o-1',
    status: 'PAYMENT_TIMEOUT',
    createdAt: '2026-01-01T00:00:00.000Z',
    paymentDueAt: '2026-01-01T00:00:04.000Z',
    updatedAt: '2026-01-01T00:00:04.010Z',
    transitions: [{ from: 'PENDING_PAYMENT', to: 'PAYMENT_TIMEOUT', at: '2026-01-01T00:00:04.010Z', by: 'timeout' }],
    extra: 'ignored',
  };

  it('keeps the fields of the contract', () => {
    expect(parseOrderView(valid)).toEqual({
      id: 'o-1',
      status: 'PAYMENT_TIMEOUT',
      createdAt: valid.createdAt,
      paymentDueAt: valid.paymentDueAt,
      updatedAt: valid.updatedAt,
      transitions: valid.transitions,
    });
  });

  it('treats missing transitions as none and a missing "by" as unknown', () => {
    const view = parseOrderView({ ...valid, transitions: undefined });
    expect(view?.transitions).toEqual([]);
    const noBy = parseOrderView({ ...valid, transitions: [{ from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: 5 }] });
    expect(noBy?.transitions[0]?.by).toBe('unknown');
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'order'],
    ['no id', { ...valid, id: undefined }],
    ['a bad deadline', { ...valid, paymentDueAt: 'soon' }],
    ['a transition without a time', { ...valid, transitions: [{ from: 'PENDING_PAYMENT', to: 'CONFIRMED' }] }],
    ['a transition that is not an object', { ...valid, transitions: ['PENDING_PAYMENT->CONFIRMED'] }],
  ])('rejects %s', (_label, body) => {
    expect(parseOrderView(body)).toBeUndefined();
  });
});
