// @ts-check
/** The application's timeout handling, written against the engine's API only. */

/** @typedef {'PENDING' | 'PAID' | 'PAYMENT_TIMEOUT'} OrderStatus */

/**
 * Wires the payment deadline of orders to a `DurableTimeouts` engine (real or in-memory).
 * @param {import('@durable-timeout/core').DurableTimeouts<'payment'>} timeouts
 */
function createPayments(timeouts) {
  /** @type {Map<string, OrderStatus>} */
  const orders = new Map();

  /** Compare-and-set from PENDING, so a repeated delivery changes nothing. */
  const settle = (/** @type {string} */ id, /** @type {OrderStatus} */ to) => {
    if (orders.get(id) !== 'PENDING') return false;
    orders.set(id, to);
    return true;
  };

  timeouts.handle('payment', (/** @type {import('@durable-timeout/core').TimeoutEvent<{ orderId: string }>} */ event) => {
    settle(event.payload.orderId, 'PAYMENT_TIMEOUT');
  });

  return {
    /** @param {string} id @param {number} delayMs */
    async create(id, delayMs) {
      await timeouts.schedule('payment', id, { delayMs, payload: { orderId: id } });
      orders.set(id, 'PENDING');
    },
    /** @param {string} id */
    async pay(id) {
      const paid = settle(id, 'PAID');
      if (paid) await timeouts.cancel('payment', id);
      return paid;
    },
    /** @param {string} id */
    find: (id) => orders.get(id),
  };
}

module.exports = { createPayments };
