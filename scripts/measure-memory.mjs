// Measures Redis memory per pending timeout at a given count, on a throwaway redis-server (no
// AOF, no other keys): used_memory after scheduling `count` timeouts through the store, minus
// before, divided by `count`. Ids and payloads as given by the profile. Run after `npm run build`:
//
//   node scripts/measure-memory.mjs [count=1000000]
import { randomUUID } from 'node:crypto';
import { RedisTimeoutStore, slotOf } from '@durable-timeout/core';
import { RedisServer } from '@durable-timeout/redis-testing';

const count = Number(process.argv[2] ?? 1_000_000);
const profiles = [
  { name: '12-char id, 20-byte payload', id: (i) => `order-${String(i).padStart(6, '0')}`, payload: () => '{"amount":424,"c":1}' },
  {
    name: '36-char UUID id, 200-byte payload',
    id: () => randomUUID(),
    payload: (i) => JSON.stringify({ orderId: `o-${i}`, customer: 'c-0000000000001', note: 'x'.repeat(140) }).padEnd(200, ' ').slice(0, 200),
  },
];

for (const profile of profiles) {
  const server = await RedisServer.start();
  const store = new RedisTimeoutStore({ connection: server.url, prefix: 'dt', commandTimeoutMs: 120_000 });
  try {
    const client = store.connection;
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))[1]);
    await store.ping();
    const before = await usedMemory();
    for (let start = 0; start < count; start += 5_000) {
      const calls = [];
      for (let i = start; i < Math.min(count, start + 5_000); i++) {
        const id = profile.id(i);
        calls.push(store.writes.schedule({ topic: 'payment', slot: slotOf(id, 16) }, id, { delayMs: 3_600_000 + (i % 1_000), payload: profile.payload(i) }));
      }
      await Promise.all(calls);
    }
    const after = await usedMemory();
    const pending = Number(await client.zcard(store.keys.slot('payment', 0).due)) * 16;
    console.log(
      `${profile.name}: ${count} pending (about ${pending} by slot 0 x 16), ${(after - before) / 1024 / 1024 | 0} MiB, ` +
        `${((after - before) / count).toFixed(1)} bytes per pending timeout`,
    );
  } finally {
    await store.close();
    await server.stop();
  }
}
