import { FEW_BUCKETS } from '../commands/index.js';
import { DEFAULT_LEASE_EXPIRY } from '../validation/defaults.js';
import type { RedisCalls } from './redis-calls.js';
import type { TimeoutKeys } from './timeout-keys.js';
import type { ClaimHints } from './claim-hints.js';
import { DATA_BUCKETS } from './slot-of.js';
import { truncateError } from './stored-error.js';
import { bucketKeys, padBuckets } from './bucket-keys.js';
import { MAX_CLAIM, RECOVER_PER_CLAIM } from './timeout-store.js';
import type {
  AckEntry,
  AckResult,
  ClaimResult,
  FailOutcome,
  LatePolicy,
  SlotRateLimit,
  LeaseExpiryPolicy,
  LeaseRenewal,
  NextOccurrence,
  ReleaseResult,
  RenewResult,
  SlotRef,
  StoreFailure,
  Deliveries,
} from './timeout-store.js';
import { ackResult, count, decodeClaim, unexpected, type ScriptArg } from './redis-replies.js';
import { CallCoalescer, type SlotCallKind } from './call-coalescer.js';
import type { ScriptName } from '../commands/index.js';

/** Most entries one ack-many / release script call carries; larger requests are split. */
const ENTRY_BATCH = 500;

/**
 * The Redis store's worker calls: claim due timeouts, then ack, renew, fail or release what was
 * claimed, each checked against its fencing token. Unlike interactive calls they have no deadline:
 * they wait for the connection to come back (a worker retries nothing itself), and a failover
 * symptom reaches the engine as `RedisUnavailableError` with `failover` set (store/redis-calls.ts).
 * The method docs are on `Deliveries`.
 *
 * On one server (or Sentinel) the claims and ack-manys of any slots made in the same turn of the
 * event loop travel in one script call (store/call-coalescer.ts); on a Cluster each goes alone.
 */
export class RedisDeliveries implements Deliveries {
  readonly coalescesSlotCalls: boolean;
  private readonly coalescer: CallCoalescer | undefined;

  constructor(
    private readonly keys: TimeoutKeys,
    private readonly calls: RedisCalls,
    /** Shared with the store's schedules, which widen a slot's hint when they write into a bucket. */
    private readonly claimHints: ClaimHints,
    /** Whether calls of different slots may share a script call: false on a Cluster. */
    coalesce: boolean,
  ) {
    this.coalescesSlotCalls = coalesce;
    this.coalescer = coalesce ? new CallCoalescer((name, keys, args) => this.calls.run(name, keys, args)) : undefined;
  }

  /** Sends one slot's claim or ack-many: through the batching step on one server, alone on a Cluster. */
  private slotCall(kind: SlotCallKind, script: ScriptName, keys: readonly string[], args: readonly ScriptArg[], ids: number): Promise<unknown> {
    if (this.coalescer === undefined) return this.calls.run(script, keys, args);
    this.calls.assertOpen();
    return this.coalescer.add({ kind, script, keys, args, ids });
  }

  /**
   * Claims with the few bucket keys the slot's previous claim said the next due ids live in, when
   * that claim was not a full batch; the script changes nothing and says so when it needs another
   * bucket (or an expired lease waits), and the claim is made again with every bucket.
   */
  async claim(
    slot: SlotRef,
    limit: number,
    leaseMs: number,
    expiry: LeaseExpiryPolicy = DEFAULT_LEASE_EXPIRY,
    late?: LatePolicy,
    rate?: SlotRateLimit,
  ): Promise<ClaimResult> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const take = Math.max(0, Math.min(Math.floor(limit), MAX_CLAIM));
    const args: ScriptArg[] = [
      take,
      Math.max(1, Math.round(leaseMs)),
      RECOVER_PER_CLAIM,
      DATA_BUCKETS,
      FEW_BUCKETS,
      expiry.maxAttempts,
      expiry.backoff.baseMs,
      expiry.backoff.capMs,
      Math.random(),
      ...lateArgs(late),
      rate === undefined ? 0 : rate.perMs,
      rate === undefined ? 0 : rate.burst,
    ];
    const fixed = [keys.due, keys.lease, keys.seq, keys.dead, keys.layout, keys.paused];
    const hint = this.claimHints.get(slot);
    let reply: unknown = 0;
    if (hint !== undefined) {
      const chosen = padBuckets(hint);
      reply = await this.slotCall('c', 'claimFew', [...fixed, ...chosen.map((bucket) => keys.buckets[bucket]!)], [...args, ...chosen], take);
    }
    if (reply === 0) reply = await this.slotCall('c', 'claim', [...fixed, ...keys.buckets], args, take);
    const result = decodeClaim(reply);
    // A full batch means a backlog: the next claim takes more ids than a few buckets hold. Ids the
    // late policy refused count: a batch of them is a backlog too.
    let taken = result.claimed.length;
    for (const incident of result.incidents) if (incident.kind === 'late_dead' || incident.kind === 'late_skipped') taken++;
    this.claimHints.set(slot, take > 0 && taken >= take ? undefined : ((reply as unknown[])[4] as unknown[]).map(Number));
    return result;
  }

  async ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.run('ack', [keys.lease, this.keys.dataKey(slot.topic, slot.slot, id), keys.fwd], [id, fencingToken]);
    return ackResult(reply, 'ack');
  }

  async ackNext(slot: SlotRef, id: string, fencingToken: number, next: NextOccurrence): Promise<AckResult> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.run('ackNext', [keys.due, keys.lease, this.keys.dataKey(slot.topic, slot.slot, id), keys.fwd], [
      id,
      fencingToken,
      Math.round(next.dueAt),
      next.payload,
      this.keys.wakeChannel(slot.topic),
      slot.slot,
    ]);
    return ackResult(reply, 'ackNext');
  }

  /** Passes only the buckets of the renewed ids when they are at most `FEW_BUCKETS`, every bucket otherwise. */
  async renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> {
    if (entries.length === 0) return [];
    const keys = this.keys.slot(slot.topic, slot.slot);
    const buckets = bucketKeys(entries.map(({ id }) => id), keys.buckets, 2);
    const args: ScriptArg[] = [];
    entries.forEach(({ id, fencingToken, leaseMs }, i) => args.push(id, fencingToken, Math.max(1, Math.round(leaseMs)), buckets.keyIndex(i)));
    const reply = await this.calls.run(buckets.few ? 'renewLeasesFew' : 'renewLeases', [keys.lease, keys.fwd, ...buckets.keys], args);
    if (!Array.isArray(reply) || reply.length !== entries.length) throw unexpected('renewLeases', reply);
    return reply.map((code: unknown): RenewResult => {
      if (code === 0) return 'stale';
      if (typeof code === 'number' && code > 0) return { leaseExpiresAt: code };
      const forward = typeof code === 'string' ? /^fwd:(\d+)$/.exec(code) : null;
      if (!forward) throw unexpected('renewLeases', code);
      return { forwardedTo: Number(forward[1]) };
    });
  }

  /** Passes only the buckets of the acked ids when they are at most `FEW_BUCKETS`, every bucket otherwise. */
  async ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const results: AckResult[] = [];
    for (let start = 0; start < entries.length; start += ENTRY_BATCH) {
      const batch = entries.slice(start, start + ENTRY_BATCH);
      const buckets = bucketKeys(batch.map((entry) => entry.id), keys.buckets, 2);
      const args: ScriptArg[] = [];
      batch.forEach((entry, i) => args.push(entry.id, entry.fencingToken, buckets.keyIndex(i)));
      const reply = await this.slotCall('a', buckets.few ? 'ackManyFew' : 'ackMany', [keys.lease, keys.fwd, ...buckets.keys], args, batch.length);
      if (!Array.isArray(reply) || reply.length !== batch.length) throw unexpected('ackMany', reply);
      for (const code of reply) results.push(ackResult(code, 'ackMany'));
    }
    return results;
  }

  async fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.run('fail', [keys.due, keys.lease, keys.dead, this.keys.dataKey(slot.topic, slot.slot, id), keys.fwd], [
      id,
      fencingToken,
      Math.max(0, Math.round(failure.retryDelayMs)),
      failure.maxAttempts,
      truncateError(failure.error),
      this.keys.wakeChannel(slot.topic),
      slot.slot,
    ]);
    if (!Array.isArray(reply) || reply.length < 1) throw unexpected('fail', reply);
    switch (reply[0]) {
      case 0:
        return { outcome: 'stale' };
      case 1:
        return { outcome: 'retried', retryAt: Number(reply[1]) };
      case 2:
        return { outcome: 'dead', deadAt: Number(reply[1]) };
      case 3:
        return { outcome: 'forwarded', slot: Number(reply[1]) };
      default:
        throw unexpected('fail', reply);
    }
  }

  async release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const result: ReleaseResult = { released: 0, forwarded: [] };
    for (let start = 0; start < entries.length; start += ENTRY_BATCH) {
      const batch = entries.slice(start, start + ENTRY_BATCH);
      const reply = await this.calls.run('release', [keys.due, keys.lease, keys.fwd, ...keys.buckets], [
        this.keys.wakeChannel(slot.topic),
        slot.slot,
        ...batch.flatMap((entry) => [entry.id, entry.fencingToken]),
      ]);
      if (!Array.isArray(reply) || reply.length < 1) throw unexpected('release', reply);
      result.released += count(reply[0], 'release');
      for (let i = 1; i + 1 < reply.length; i += 2) result.forwarded.push({ id: String(reply[i]), slot: Number(reply[i + 1]) });
    }
    return result;
  }
}

/** The claim script's late-policy arguments (ARGV[10], ARGV[11]): after ms (-1: none) and action code. */
function lateArgs(late: LatePolicy | undefined): ScriptArg[] {
  if (late === undefined || late.action === 'fire') return [-1, 0];
  return [Math.max(0, Math.round(late.afterMs)), late.action === 'dead-letter' ? 1 : 2];
}
