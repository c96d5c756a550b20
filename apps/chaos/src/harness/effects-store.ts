import { Redis } from 'ioredis';

/**
 * Records a delivery: how many times the handler ran for the id, the greatest token delivered,
 * and the first delivery time (the effects server clock, which is the host clock like the main server's).
 * KEYS: deliveries, maxDelivered, firstDelivery. ARGV: id, token.
 */
const DELIVER_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local maxDelivered = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if tonumber(ARGV[2]) > maxDelivered then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
redis.call('HSETNX', KEYS[3], ARGV[1], now)
return now
`;

/**
 * The handler's effect, written the way the library asks a handler to guard its write: refused
 * when the token is smaller than the last token seen for the id (a stale worker), a no-op when the
 * effect was already made (idempotent), otherwise applied once.
 * KEYS: fence, applied, effectAt, staleRejected, staleApplied, maxDelivered, repeats. ARGV: id, token.
 * Returns 1 applied, 2 already applied (no-op), 0 refused as stale.
 */
const EFFECT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = ARGV[1]
local token = tonumber(ARGV[2])
local fence = tonumber(redis.call('HGET', KEYS[1], id) or '-1')
if token < fence then
  redis.call('HINCRBY', KEYS[4], id, 1)
  return 0
end
redis.call('HSET', KEYS[1], id, token)
if redis.call('HEXISTS', KEYS[3], id) == 1 then
  redis.call('HINCRBY', KEYS[7], id, 1)
  return 2
end
redis.call('HINCRBY', KEYS[2], id, 1)
redis.call('HSET', KEYS[3], id, now)
local maxDelivered = tonumber(redis.call('HGET', KEYS[6], id) or '-1')
if token < maxDelivered then redis.call('HINCRBY', KEYS[5], id, 1) end
return 1
`;

/** Key names of one scenario's records in the effects server. */
function keysOf(prefix: string) {
  return {
    deliveries: `${prefix}:deliveries`,
    maxDelivered: `${prefix}:maxDelivered`,
    firstDelivery: `${prefix}:firstDelivery`,
    fence: `${prefix}:fence`,
    applied: `${prefix}:applied`,
    effectAt: `${prefix}:effectAt`,
    staleRejected: `${prefix}:staleRejected`,
    staleApplied: `${prefix}:staleApplied`,
    repeats: `${prefix}:repeats`,
  };
}

/** What a handler calls: one delivery record, then one guarded effect write. */
export class EffectsRecorder {
  private readonly redis: Redis;
  private readonly keys: ReturnType<typeof keysOf>;

  constructor(url: string, prefix: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: null });
    this.keys = keysOf(prefix);
  }

  /** Counts one handler invocation for `id` with `token`. */
  async delivered(id: string, token: number): Promise<void> {
    const k = this.keys;
    await this.redis.eval(DELIVER_SCRIPT, 3, k.deliveries, k.maxDelivered, k.firstDelivery, id, token);
  }

  /** The guarded effect write: 1 applied, 2 already applied, 0 refused as stale. */
  async effect(id: string, token: number): Promise<number> {
    const k = this.keys;
    return Number(
      await this.redis.eval(
        EFFECT_SCRIPT, 7, k.fence, k.applied, k.effectAt, k.staleRejected, k.staleApplied, k.maxDelivered, k.repeats, id, token,
      ),
    );
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** Per-id records of one scenario, read back by the harness. */
export interface EffectsSnapshot {
  deliveries: Map<string, number>;
  firstDelivery: Map<string, number>;
  applied: Map<string, number>;
  effectAt: Map<string, number>;
  staleRejected: number;
  staleApplied: number;
}

/** Reads a whole hash of numbers in pages (HSCAN), never blocking the effects server for long. */
async function readHash(redis: Redis, key: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = '0';
  for (let page = 0; page < 100_000; page += 1) {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', 2000);
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    cursor = next;
    if (cursor === '0') break;
  }
  return out;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** The harness side: reads what the handlers of one scenario recorded. */
export class EffectsReader {
  private readonly keys: ReturnType<typeof keysOf>;

  constructor(private readonly redis: Redis, prefix: string) {
    this.keys = keysOf(prefix);
  }

  /** How many ids have an applied effect (cheap; for polling). */
  async appliedCount(): Promise<number> {
    return this.redis.hlen(this.keys.effectAt);
  }

  /** Everything recorded so far. */
  async snapshot(): Promise<EffectsSnapshot> {
    const k = this.keys;
    return {
      deliveries: await readHash(this.redis, k.deliveries),
      firstDelivery: await readHash(this.redis, k.firstDelivery),
      applied: await readHash(this.redis, k.applied),
      effectAt: await readHash(this.redis, k.effectAt),
      staleRejected: sum((await readHash(this.redis, k.staleRejected)).values()),
      staleApplied: sum((await readHash(this.redis, k.staleApplied)).values()),
    };
  }
}
