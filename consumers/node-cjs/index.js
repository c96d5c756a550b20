// @ts-check
// Runs against a real Redis: schedules a payment deadline, waits until the handler fired, prints
// one JSON line per step, stops. Environment: REDIS_URL, TIMEOUT_PREFIX.
const { DurableTimeouts, RedisUnavailableError } = require('@durable-timeout/core');
const { createPayments } = require('./payments');

async function main() {
  /** @type {DurableTimeouts<'payment'>} */
  const timeouts = new DurableTimeouts({
    connection: process.env.REDIS_URL,
    prefix: process.env.TIMEOUT_PREFIX ?? 'dt',
    topics: { payment: { slots: 4 } },
    logger: null,
  });
  const payments = createPayments(timeouts);
  const fired = new Promise((resolve) => timeouts.on('fired', resolve));
  await timeouts.start();
  await payments.create('order-1', 200);
  console.log(JSON.stringify({ step: 'scheduled', status: payments.find('order-1') }));
  await fired;
  console.log(JSON.stringify({ step: 'fired', status: payments.find('order-1') }));
  const health = await timeouts.health();
  console.log(JSON.stringify({ step: 'health', running: health.running, redisUp: health.redisLatencyMs !== null }));
  await timeouts.stop({ drainMs: 1_000 });
  console.log(JSON.stringify({ step: 'stopped', redisUnavailableError: typeof RedisUnavailableError }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
