// @ts-check
const { createTestingTimeouts } = require('@durable-timeout/core/testing');
const { InvalidDelayError } = require('@durable-timeout/core');
const { createPayments } = require('./payments');

describe('payments', () => {
  it('times out an unpaid order when its deadline passes, and not a paid one', async () => {
    const { timeouts, advanceBy } = createTestingTimeouts({ topics: { payment: {} } });
    const payments = createPayments(timeouts);
    await payments.create('unpaid', 60_000);
    await payments.create('paid', 60_000);
    await payments.pay('paid');

    expect(await advanceBy(59_999)).toBe(0);
    expect(payments.find('unpaid')).toBe('PENDING');
    expect(await advanceBy(1)).toBe(1);
    expect(payments.find('unpaid')).toBe('PAYMENT_TIMEOUT');
    expect(payments.find('paid')).toBe('PAID');
  });

  it('rejects a negative delay with a typed error and stores nothing', async () => {
    const { timeouts } = createTestingTimeouts({ topics: { payment: {} } });
    const payments = createPayments(timeouts);
    await expect(payments.create('order-1', -1)).rejects.toBeInstanceOf(InvalidDelayError);
    expect(payments.find('order-1')).toBeUndefined();
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
  });
});
