import type { RedisCalls } from './redis-calls.js';
import type { TimeoutKeys } from './timeout-keys.js';
import type { PauseState, ResumeResult, SlotRef, SlotStats, StoredDeadLetter, StoredPendingEntry, StoredFiringEntry, StoredTimeout, StoreReads } from './timeout-store.js';
import { count, decodeStored, tuple, unexpected } from './redis-replies.js';

/** Most dead letters one replay / purge script call moves; larger requests loop. */
const DEAD_BATCH = 500;

/**
 * The Redis store's reads and dead-letter operations (`get`, the admin page, the CLI, health
 * checks): one timeout, a slot's counts, listings of its pending timeouts and dead letters, replay
 * and purge of dead letters. Interactive calls with a deadline; a replay or purge of a whole slot
 * loops until a call moves less than a batch. The method docs are on `StoreReads`.
 */
export class RedisReads implements StoreReads {
  constructor(
    private readonly keys: TimeoutKeys,
    private readonly calls: RedisCalls,
    /** The slot's schedules of this tick go out first, so that a read sees them. */
    private readonly writes: { flushSlot(slot: SlotRef): void },
  ) {}

  async get(slot: SlotRef, id: string): Promise<StoredTimeout | null> {
    this.writes.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const dataKey = this.keys.dataKey(slot.topic, slot.slot, id);
    const reply = await this.calls.script('get', 'get', [keys.due, keys.lease, keys.dead, dataKey, keys.layout], [id, slot.slots ?? 0]);
    return decodeStored(id, reply);
  }


  async stats(slot: SlotRef): Promise<SlotStats> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('stats', 'stats', [keys.due, keys.lease, keys.dead, keys.paused], []);
    const [pending, firing, dead, oldest, now, pausedAt] = tuple(reply, 'stats', 6);
    return {
      pending: Number(pending),
      firing: Number(firing),
      dead: Number(dead),
      oldestOverdueDueAt: oldest === null ? null : Number(oldest),
      now: Number(now),
      pausedAt: pausedAt === null ? null : Number(pausedAt),
    };
  }

  async listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]> {
    const page = await this.scoredPage('listPending', this.keys.slot(slot.topic, slot.slot).due, offset, limit);
    return page.map(([id, dueAt]) => ({ id, dueAt }));
  }

  /** The pending listing's script, on the lease set: the same sorted-set page, scored by lease expiry. */
  async listFiring(slot: SlotRef, offset: number, limit: number): Promise<StoredFiringEntry[]> {
    const page = await this.scoredPage('listFiring', this.keys.slot(slot.topic, slot.slot).lease, offset, limit);
    return page.map(([id, leaseExpiresAt]) => ({ id, leaseExpiresAt }));
  }

  async listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]> {
    if (limit <= 0) return [];
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('listDead', 'deadList', [keys.dead, ...keys.buckets], [Math.max(0, offset), limit]);
    if (!Array.isArray(reply) || reply.length % 6 !== 0) throw unexpected('deadList', reply);
    const letters: StoredDeadLetter[] = [];
    for (let i = 0; i < reply.length; i += 6) {
      letters.push({
        id: String(reply[i]),
        deadAt: Number(reply[i + 1]),
        scheduledAt: Number(reply[i + 2]),
        attempts: Number(reply[i + 3]),
        lastError: String(reply[i + 4]),
        payload: String(reply[i + 5]),
      });
    }
    return letters;
  }

  async replayDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.writes.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const scriptKeys = [keys.due, keys.dead, keys.layout, ...keys.buckets];
    const replayBatch = (batch: readonly string[]) =>
      this.calls
        .script('replayDead', 'deadReplay', scriptKeys, [this.keys.wakeChannel(slot.topic), slot.slot, DEAD_BATCH, slot.slots ?? 0, ...batch])
        .then((reply) => count(reply, 'deadReplay'));
    return this.inBatches(ids, replayBatch);
  }

  async purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.writes.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const scriptKeys = [keys.dead, keys.layout, ...keys.buckets];
    const purgeBatch = (batch: readonly string[]) =>
      this.calls.script('purgeDead', 'deadPurge', scriptKeys, [DEAD_BATCH, slot.slots ?? 0, ...batch]).then((reply) => count(reply, 'deadPurge'));
    return this.inBatches(ids, purgeBatch);
  }

  pause(slot: SlotRef, since?: number): Promise<PauseState> {
    return this.pauseCall(slot, 'pause', since);
  }

  pauseState(slot: SlotRef): Promise<PauseState> {
    return this.pauseCall(slot, 'read');
  }

  async resume(slot: SlotRef, shift: boolean): Promise<ResumeResult> {
    this.writes.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('resume', 'resume', [keys.paused, keys.due, ...keys.buckets], [shift ? 1 : 0, this.keys.wakeChannel(slot.topic), slot.slot]);
    const [now, pausedAt, shifted] = tuple(reply, 'resume', 3);
    return { now: Number(now), pausedAt: pausedAt === -1 ? null : Number(pausedAt), shifted: count(shifted, 'resume') };
  }

  private async pauseCall(slot: SlotRef, mode: 'pause' | 'read', since?: number): Promise<PauseState> {
    const args = since === undefined ? [mode] : [mode, Math.floor(since)];
    const reply = await this.calls.script(mode === 'pause' ? 'pause' : 'pauseState', 'pause', [this.keys.slot(slot.topic, slot.slot).paused], args);
    const [now, pausedAt] = tuple(reply, 'pause', 1);
    return { now: Number(now), pausedAt: pausedAt === undefined || pausedAt === null ? null : Number(pausedAt) };
  }

  private async inBatches(ids: readonly string[] | undefined, runBatch: (batch: readonly string[]) => Promise<number>): Promise<number> {
    let total = 0;
    if (ids === undefined) {
      for (;;) {
        const moved = await runBatch([]);
        total += moved;
        if (moved < DEAD_BATCH) return total;
      }
    }
    for (let start = 0; start < ids.length; start += DEAD_BATCH) total += await runBatch(ids.slice(start, start + DEAD_BATCH));
    return total;
  }

  /** A page of a slot's sorted set `key` (`pending-list`: ids with their scores, lowest first), as [id, score] pairs. */
  private async scoredPage(operation: string, key: string, offset: number, limit: number): Promise<[string, number][]> {
    if (limit <= 0) return [];
    const reply = await this.calls.script(operation, 'pendingList', [key], [Math.max(0, offset), limit]);
    if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpected('pendingList', reply);
    const page: [string, number][] = [];
    for (let i = 0; i < reply.length; i += 2) page.push([String(reply[i]), Number(reply[i + 1])]);
    return page;
  }
}
