import { describe, expect, it } from '@jest/globals';
import { CorruptRecordError } from '@durable-timeout/sample-app-support';
import { parseOrder } from './order.parser.js';

const ID = '11111111-2222-4333-8444-555555555555';
const AT = 1_795_000_000_000;

function stored(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    id: ID,
    status: 'PENDING_PAYMENT',
    createdAt: String(AT),
    updatedAt: String(AT),
    paymentDueAt: String(AT + 60_000),
    details: JSON.stringify({ items: [{ sku: 'SKU-1', qty: 2 }], amountCents: 4_200, customerId: 'c-1' }),
    ...overrides,
  };
}

describe('parseOrder', () => {
  it('turns the stored hash and transitions into the API view with ISO times', () => {
    const transition = JSON.stringify({ from: 'PENDING_PAYMENT', to: 'PAYMENT_TIMEOUT', at: AT + 60_010, by: 'timeout', fencingToken: 3, attempt: 2, instance: 'b' });
    expect(parseOrder(ID, stored({ status: 'PAYMENT_TIMEOUT' }), [transition])).toEqual({
      id: ID,
      status: 'PAYMENT_TIMEOUT',
      createdAt: new Date(AT).toISOString(),
      updatedAt: new Date(AT).toISOString(),
      paymentDueAt: new Date(AT + 60_000).toISOString(),
      items: [{ sku: 'SKU-1', qty: 2 }],
      amountCents: 4_200,
      customerId: 'c-1',
      transitions: [
        { from: 'PENDING_PAYMENT', to: 'PAYMENT_TIMEOUT', at: new Date(AT + 60_010).toISOString(), by: 'timeout', fencingToken: 3, attempt: 2, instance: 'b' },
      ],
    });
  });

  it('keeps only the known fields of a transition and leaves out customerId when absent', () => {
    const transition = JSON.stringify({ from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: AT, by: 'payment', paymentRef: 'x', extra: 1 });
    const view = parseOrder(ID, stored({ details: JSON.stringify({ items: [{ sku: 'A', qty: 1 }], amountCents: 1 }) }), [transition]);
    expect(view.transitions).toEqual([{ from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: new Date(AT).toISOString(), by: 'payment' }]);
    expect(view).not.toHaveProperty('customerId');
  });

  it.each([
    ['details that are not JSON', stored({ details: '{oops' }), []],
    ['details without items', stored({ details: JSON.stringify({ amountCents: 1 }) }), []],
    ['an item with a fractional qty', stored({ details: JSON.stringify({ items: [{ sku: 'A', qty: 0.5 }], amountCents: 1 }) }), []],
    ['an unknown status', stored({ status: 'SHIPPED' }), []],
    ['a time that is not a number', stored({ createdAt: 'yesterday' }), []],
    ['a missing due time', { ...stored(), paymentDueAt: undefined as unknown as string }, []],
    ['a transition that is not JSON', stored(), ['not json']],
    ['a transition with an unknown cause', stored(), [JSON.stringify({ from: 'PENDING_PAYMENT', to: 'CONFIRMED', at: AT, by: 'admin' })]],
    ['a transition to an unknown status', stored(), [JSON.stringify({ from: 'PENDING_PAYMENT', to: 'LOST', at: AT, by: 'timeout' })]],
  ])('refuses %s with CorruptRecordError naming the order', (_case, fields, transitions) => {
    expect(() => parseOrder(ID, fields, transitions)).toThrow(CorruptRecordError);
    expect(() => parseOrder(ID, fields, transitions)).toThrow(ID);
  });
});
