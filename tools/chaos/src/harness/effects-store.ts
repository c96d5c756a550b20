import { Redis } from 'ioredis';

/**
 * Start of one handler run. Counts the run (as a delivery unless the run is meant to fail), keeps
 * the greatest fencing token seen for the id (the fence), counts a token that does not grow (the
 * library promises a new, greater token on every claim), and notes the first run's time.
 * KEYS: deliveries, maxToken, regressions, firstDelivery, runLog, firstAttempt. ARGV: id, token, countsAsDelivery, logRun, attempt.
 */
const BEGIN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, token = ARGV[1], tonumber(ARGV[2])
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], id, 1) end
local fence = tonumber(redis.call('HGET', KEYS[2], id) or '-1')
if token <= fence then redis.call('HINCRBY', KEYS[3], id, 1) else redis.call('HSET', KEYS[2], id, token) end
redis.call('HSETNX', KEYS[4], id, now)
if ARGV[4] == '1' then redis.call('RPUSH', KEYS[5], 'start:' .. now .. ':' .. ARGV[5]) end
redis.call('HSETNX', KEYS[6], id, ARGV[5])
return now
`;

/**
 * The handler's effect, guarded the way the library tells users to guard theirs: refused when a
 * newer run of the same id exists (token below the fence: a stale worker), a no-op when the effect
 * is already there (idempotent), otherwise applied once with its time and token.
 * KEYS: maxToken, applied, effectAt, staleRejected, repeats, maxEffectToken. ARGV: id, token.
 * Returns 1 applied, 2 already there (no-op), 0 refused as stale.
 */
const EFFECT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, token = ARGV[1], tonumber(ARGV[2])
local fence = tonumber(redis.call('HGET', KEYS[1], id) or '-1')
if token < fence then
  redis.call('HINCRBY', KEYS[4], id, 1)
  return 0
end
local best = tonumber(redis.call('HGET', KEYS[6], id) or '-1')
if token > best then redis.call('HSET', KEYS[6], id, token) end
if redis.call('HEXISTS', KEYS[3], id) == 1 then
  redis.call('HINCRBY', KEYS[5], id, 1)
  return 2
end
redis.call('HINCRBY', KEYS[2], id, 1)
redis.call('HSET', KEYS[3], id, now)
return 1
`;

/**
 * Keeps the first (smallest) acknowledged token of an id: any later run whose effect write passes
 * the fence is a rerun after an accepted ack, even when that rerun is acknowledged in turn (an ack
 * lost in a failover). KEYS: ackedToken. ARGV: id, token.
 */
const ACKED_SCRIPT = `
local first = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if first < 0 or tonumber(ARGV[2]) < first then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`;

/** A run that failed on purpose: counted, and its time logged. KEYS: failures, runLog. ARGV: id. */
const FAILED_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('RPUSH', KEYS[2], 'fail:' .. now)
return now
`;

/** The library stored a failure (the worker saw its `retried` event). KEYS: runLog. */
const STORED_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('RPUSH', KEYS[1], 'stored:' .. now)
return now
`;

/** Key names of one scenario's records in the effects server. */
export function effectKeys(prefix: string) {
  return {
    deliveries: `${prefix}:deliveries`,
    maxToken: `${prefix}:maxToken`,
    regressions: `${prefix}:regressions`,
    firstDelivery: `${prefix}:firstDelivery`,
    firstAttempt: `${prefix}:firstAttempt`,
    applied: `${prefix}:applied`,
    effectAt: `${prefix}:effectAt`,
    staleRejected: `${prefix}:staleRejected`,
    repeats: `${prefix}:repeats`,
    maxEffectToken: `${prefix}:maxEffectToken`,
    ackedToken: `${prefix}:ackedToken`,
    failures: `${prefix}:failures`,
    healed: `${prefix}:healed`,
    /** Occurrences of recurring schedules: effect id -> the `missed` count of the run that made (or repeated) its effect. */
    missed: `${prefix}:missed`,
    /**
     * Run log of one id (only for ids whose runs are traced): `start:<ms>:<attempt>` / `fail:<ms>` entries, and
     * `stored:<ms>` once the library has stored a failure for a retry.
     */
    runLog: (id: string) => `${prefix}:runs:${Buffer.from(id).toString('base64url')}`,
  };
}

/** What a worker's handlers call: one record at the start of a run, then the guarded effect or a failure. */
export class EffectsRecorder {
  private readonly redis: Redis;
  private readonly keys: ReturnType<typeof effectKeys>;

  constructor(url: string, prefix: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: null, enableAutoPipelining: true });
    this.redis.on('error', () => undefined);
    this.keys = effectKeys(prefix);
  }

  /** Records the start of a run of `id` with `token` and `attempt`; `countsAsDelivery` is false for runs meant to fail. */
  async begin(id: string, token: number, attempt: number, countsAsDelivery: boolean, trace: boolean): Promise<void> {
    const k = this.keys;
    await this.redis.eval(
      BEGIN_SCRIPT, 6, k.deliveries, k.maxToken, k.regressions, k.firstDelivery, k.runLog(id), k.firstAttempt,
      id, token, countsAsDelivery ? 1 : 0, trace ? 1 : 0, attempt,
    );
  }

  /** The guarded effect write: 1 applied, 2 already there, 0 refused as stale. */
  async effect(id: string, token: number): Promise<number> {
    const k = this.keys;
    return Number(await this.redis.eval(EFFECT_SCRIPT, 6, k.maxToken, k.applied, k.effectAt, k.staleRejected, k.repeats, k.maxEffectToken, id, token));
  }

  /** Records that the library accepted the ack of the run of `id` that carried `token`. */
  async acked(id: string, token: number): Promise<void> {
    await this.redis.eval(ACKED_SCRIPT, 1, this.keys.ackedToken, id, token);
  }

  /** Records the `missed` count of an occurrence whose effect is in (the last such run's count wins). */
  async missed(id: string, missed: number): Promise<void> {
    await this.redis.hset(this.keys.missed, id, missed);
  }

  /** Records a run that failed on purpose. */
  async failed(id: string): Promise<void> {
    await this.redis.eval(FAILED_SCRIPT, 2, this.keys.failures, this.keys.runLog(id), id);
  }

  /**
   * Records that the library stored a failure of `id` for a retry (its `retried` event). A failure
   * logged without this was lost with its worker (it exited before the record reached Redis).
   */
  async failureStored(id: string): Promise<void> {
    await this.redis.eval(STORED_SCRIPT, 1, this.keys.runLog(id));
  }

  /** Whether a run of `id` failed on purpose already. */
  async failedBefore(id: string): Promise<boolean> {
    return (await this.redis.hexists(this.keys.failures, id)) === 1;
  }

  /** Whether the harness has "fixed" the failing handlers (poison scenario, before replaying dead letters). */
  async healed(): Promise<boolean> {
    return (await this.redis.exists(this.keys.healed)) === 1;
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
  /** The attempt number of each id's first run (above 1: an earlier claim of it never ran its handler). */
  firstAttempt: Map<string, number>;
  applied: Map<string, number>;
  effectAt: Map<string, number>;
  maxEffectToken: Map<string, number>;
  ackedToken: Map<string, number>;
  regressions: Map<string, number>;
  staleRejected: Map<string, number>;
  repeats: Map<string, number>;
  failures: Map<string, number>;
}

/** Reads a whole hash of numbers in pages (HSCAN), never blocking the effects server for long. */
async function readHash(redis: Redis, key: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', 2000);
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** One entry of an id's run log. */
export interface RunLogEntry {
  kind: 'start' | 'fail' | 'stored';
  at: number;
  /** The delivery's attempt number (starts only). */
  attempt?: number;
}

/** The harness side: reads what the handlers of one scenario recorded. */
export class EffectsReader {
  private readonly keys: ReturnType<typeof effectKeys>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.keys = effectKeys(prefix);
  }

  /** How many ids have an applied effect (cheap; for polling). */
  async appliedCount(): Promise<number> {
    return this.redis.hlen(this.keys.effectAt);
  }

  /** How many runs failed on purpose so far. */
  async failureCount(): Promise<number> {
    const values = await this.redis.hvals(this.keys.failures);
    return values.reduce((total, value) => total + Number(value), 0);
  }

  /** Lets the failing handlers of the poison scenario succeed from now on. */
  async heal(): Promise<void> {
    await this.redis.set(this.keys.healed, '1');
  }

  /** The run log of one traced id, oldest first. */
  async runLog(id: string): Promise<RunLogEntry[]> {
    const entries = await this.redis.lrange(this.keys.runLog(id), 0, -1);
    return entries.map((entry) => {
      const [kind, at, attempt] = entry.split(':');
      if (kind === 'fail' || kind === 'stored') return { kind, at: Number(at) };
      return { kind: 'start', at: Number(at), attempt: Number(attempt) };
    });
  }

  /** The `missed` count of every occurrence of a recurring schedule whose effect is in, by effect id. */
  async missed(): Promise<Map<string, number>> {
    return readHash(this.redis, this.keys.missed);
  }

  /** Everything recorded so far. */
  async snapshot(): Promise<EffectsSnapshot> {
    const k = this.keys;
    return {
      deliveries: await readHash(this.redis, k.deliveries),
      firstDelivery: await readHash(this.redis, k.firstDelivery),
      firstAttempt: await readHash(this.redis, k.firstAttempt),
      applied: await readHash(this.redis, k.applied),
      effectAt: await readHash(this.redis, k.effectAt),
      maxEffectToken: await readHash(this.redis, k.maxEffectToken),
      ackedToken: await readHash(this.redis, k.ackedToken),
      regressions: await readHash(this.redis, k.regressions),
      staleRejected: await readHash(this.redis, k.staleRejected),
      repeats: await readHash(this.redis, k.repeats),
      failures: await readHash(this.redis, k.failures),
    };
  }

  /** Deletes every record of the scenario (the effects server is shared by all scenarios of a run). */
  async clear(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
