import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { dueAt, PAYLOAD, idOf, type DuePlan } from '../workloads.js';
import { inPool, type BenchSystem, type FireSink, type RedisTarget } from './system.js';
import { benchMessages } from '../bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

const POLL_INTERVAL_MS = 1_000;
const CHUNK = 1_000;
const CHUNKS_IN_FLIGHT = 4;

function keysOf(prefix: string) {
  return { due: `${prefix}:poll:due`, data: `${prefix}:poll:data`, lock: `${prefix}:poll:lock` };
}

function clientOf(target: RedisTarget): Redis {
  if (target.kind !== 'single') throw new HarnessError('environment', benchMessages.singleServerOnly('The polling design'));
  return new Redis({ host: target.host, port: target.port, maxRetriesPerRequest: null });
}

async function addPlan(redis: Redis, prefix: string, plan: DuePlan): Promise<void> {
  const keys = keysOf(prefix);
  await inPool(Math.ceil(plan.count / CHUNK), CHUNKS_IN_FLIGHT, async (chunk) => {
    const pipeline = redis.pipeline();
    for (let i = chunk * CHUNK; i < Math.min(plan.count, (chunk + 1) * CHUNK); i++) {
      const id = idOf(plan, i);
      pipeline.zadd(keys.due, dueAt(plan, i), id).hset(keys.data, id, JSON.stringify(PAYLOAD));
    }
    await pipeline.exec();
  });
}

/** How long a lock outlives a poller that died holding it. */
const LOCK_TTL_MS = 5 * POLL_INTERVAL_MS;

/** One poll: take the lock, pop everything due in pages (ZREM deciding who fires), drop the lock. */
async function poll(redis: Redis, prefix: string, owner: string, sink: FireSink): Promise<void> {
  const keys = keysOf(prefix);
  const locked = await redis.set(keys.lock, owner, 'PX', LOCK_TTL_MS, 'NX');
  if (locked !== 'OK') return;
  try {
    await popDue(redis, keys, sink);
  } finally {
    await redis.del(keys.lock);
  }
}

async function popDue(redis: Redis, keys: ReturnType<typeof keysOf>, sink: FireSink): Promise<void> {
  for (;;) {
    const due = await redis.zrangebyscore(keys.due, '-inf', Date.now(), 'LIMIT', 0, CHUNK);
    if (due.length === 0) return;
    const pipeline = redis.pipeline();
    for (const id of due) pipeline.zrem(keys.due, id).hget(keys.data, id).hdel(keys.data, id);
    const replies = (await pipeline.exec()) ?? [];
    due.forEach((id, i) => {
      const [error, removed] = replies[i * 3] ?? [];
      if (!error && removed === 1) sink(id, null);
    });
  }
}

/**
 * The common hand-made design: a ZSET of due times polled once a second by every instance, a
 * `SET NX PX` lock so one instance polls at a time, and `ZREM` deciding which instance fires an id.
 */
export const pollingSystem: BenchSystem = {
  key: 'polling',
  usesRedis: true,
  async openScheduler(target, prefix) {
    const redis = clientOf(target);
    await redis.ping();
    return { scheduleAll: (plan) => addPlan(redis, prefix, plan), close: async () => void (await redis.quit()) };
  },
  async openWorker(target, settings, sink) {
    const redis = clientOf(target);
    const owner = randomUUID();
    let running: Promise<void> | undefined;
    const timer = setInterval(() => {
      running ??= poll(redis, settings.prefix, owner, sink)
        .catch(() => undefined)
        .finally(() => (running = undefined));
    }, POLL_INTERVAL_MS);
    return {
      stop: async () => {
        clearInterval(timer);
        await running;
        await redis.quit();
      },
    };
  },
};
