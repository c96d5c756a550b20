import type { AckEntry, AckResult, ClaimedTimeout, ClaimIncident, ClaimResult, FailOutcome, LatePolicy, LeaseExpiryPolicy, Deliveries, SlotRateLimit } from '../store/timeout-store.js';
import type { LeaseRenewal, NextOccurrence, ReleaseResult, RenewResult, SlotRef, StoreFailure } from '../store/timeout-store.js';
import { MAX_CLAIM, RECOVER_PER_CLAIM } from '../store/timeout-store.js';
import { LATE_ERROR, LEASE_EXPIRED_ERROR, truncateError } from '../store/stored-error.js';
import { bucketOf } from '../store/slot-of.js';
import { retryDelayMs } from '../support/retry-backoff.js';
import { DEFAULT_LEASE_EXPIRY } from '../validation/defaults.js';
import type { ManualClock } from './manual-clock.js';
import type { MemorySlotLayouts } from './memory-slot-layouts.js';
import type { MemoryWakeUps } from './memory-wake-ups.js';
import { compareIds, earliestLease, earliestPending, holds, pendingInOrder, type MemoryEntry, type MemorySlot, type MemorySlots } from './memory-slots.js';

/**
 * The worker calls of `MemoryTimeoutStore`, as the Redis store's scripts make them
 * (store/redis-deliveries.ts): claims that recover expired leases first and hand out fencing
 * tokens above the clock, then ack, renew, fail and release checked against the token, each
 * following a slot migration's forward when the delivery was moved.
 */
export class MemoryDeliveries implements Deliveries {
  constructor(
    private readonly clock: ManualClock,
    private readonly slots: MemorySlots,
    private readonly layouts: MemorySlotLayouts,
    private readonly wakeUps: MemoryWakeUps,
  ) {}

  async claim(
    slot: SlotRef,
    limit: number,
    leaseMs: number,
    expiry: LeaseExpiryPolicy = DEFAULT_LEASE_EXPIRY,
    late?: LatePolicy,
    rate?: SlotRateLimit,
  ): Promise<ClaimResult> {
    this.slots.assertOpen();
    const now = this.clock.now();
    const state = this.slots.get(slot);
    if (state.pausedAt !== null) return { claimed: [], incidents: [], now, nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null, paused: true };
    // Ids of the bucket a slot migration is moving are left alone until it is moved.
    const busy = this.layouts.movingBucket(slot);
    const movable = (entry: MemoryEntry) => busy === undefined || bucketOf(entry.id) !== busy;
    const expired = [...state.entries.values()]
      .filter((entry) => entry.state === 'firing' && entry.leaseExpiresAt <= now && movable(entry))
      .sort((a, b) => a.leaseExpiresAt - b.leaseExpiresAt || compareIds(a.id, b.id))
      .slice(0, RECOVER_PER_CLAIM);
    const incidents: ClaimIncident[] = expired.map((entry) => this.expireLease(entry, now, expiry));
    let tokens: number | null = null;
    if (rate !== undefined && rate.perMs > 0) {
      tokens = state.tokens === null ? rate.burst : Math.min(rate.burst, state.tokens + Math.max(0, now - state.tokensAt) * rate.perMs);
    }
    const take = Math.max(0, Math.min(Math.floor(limit), MAX_CLAIM, tokens === null ? MAX_CLAIM : Math.floor(tokens)));
    const due = pendingInOrder(state)
      .filter((entry) => entry.dueAt <= now && movable(entry))
      .slice(0, take);
    const leaseUntil = now + Math.max(1, Math.round(leaseMs));
    // Tokens stay above the clock in 1/1024 ms, as in the Redis store (see take_tokens in stored.lua).
    state.seq = Math.max(state.seq, now * 1024);
    const lateAfter = late === undefined || late.action === 'fire' ? -1 : Math.max(0, Math.round(late.afterMs));
    const claimed: ClaimedTimeout[] = [];
    for (const entry of due) {
      if (lateAfter >= 0 && now - entry.dueAt > lateAfter) {
        incidents.push(this.refuseLate(state, entry, now, late!.action));
        continue;
      }
      state.seq += 1;
      entry.state = 'firing';
      entry.attempt += 1;
      entry.fencingToken = state.seq;
      entry.leaseExpiresAt = leaseUntil;
      claimed.push({
        id: entry.id,
        dueAt: entry.dueAt,
        scheduledAt: entry.scheduledAt,
        attempt: entry.attempt,
        fencingToken: entry.fencingToken,
        payload: entry.payload,
      });
    }
    let nextDueAt = earliestPending(state);
    if (tokens !== null) {
      tokens -= claimed.length;
      state.tokens = tokens;
      state.tokensAt = now;
      // Waiting for a token: the next claim that can take anything is when one has come.
      if (nextDueAt !== null && tokens < 1) nextDueAt = Math.max(nextDueAt, now + Math.ceil((1 - tokens) / rate!.perMs));
    }
    return {
      claimed,
      incidents,
      now,
      nextDueAt,
      recovered: expired.length,
      nextLeaseExpiresAt: earliestLease(state),
    };
  }

  /** A due timeout the late policy refused: dead-lettered (`LATE_ERROR`) or dropped. */
  private refuseLate(state: MemorySlot, entry: MemoryEntry, now: number, action: LatePolicy['action']): ClaimIncident {
    const dueAt = entry.dueAt;
    if (action === 'dead-letter') {
      entry.state = 'dead';
      entry.dueAt = now;
      entry.lastError = LATE_ERROR;
      return { id: entry.id, kind: 'late_dead', attempts: entry.attempt, at: now, error: LATE_ERROR, dueAt };
    }
    state.entries.delete(entry.id);
    return { id: entry.id, kind: 'late_skipped', attempts: entry.attempt, at: now, error: '', dueAt };
  }

  /** An expired lease counts as a failed attempt: retried after the backoff, or dead on the last attempt. */
  private expireLease(entry: MemoryEntry, now: number, expiry: LeaseExpiryPolicy): ClaimIncident {
    entry.fencingToken = 0;
    entry.leaseExpiresAt = 0;
    entry.lastError = LEASE_EXPIRED_ERROR;
    if (entry.attempt >= expiry.maxAttempts) {
      entry.state = 'dead';
      entry.dueAt = now;
      return { id: entry.id, kind: 'lease_dead', attempts: entry.attempt, at: now, error: LEASE_EXPIRED_ERROR };
    }
    entry.state = 'pending';
    entry.dueAt = now + retryDelayMs(entry.attempt, expiry.backoff);
    return { id: entry.id, kind: 'lease_retried', attempts: entry.attempt, at: entry.dueAt, error: LEASE_EXPIRED_ERROR };
  }

  async ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult> {
    this.slots.assertOpen();
    return this.ackOne(slot, id, fencingToken);
  }

  async ackNext(slot: SlotRef, id: string, fencingToken: number, next: NextOccurrence): Promise<AckResult> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const entry = state.entries.get(id);
    if (!entry || !holds(state, id, fencingToken)) {
      const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
      return forwardedTo === undefined ? 'stale' : { forwardedTo };
    }
    const now = this.clock.now();
    const before = earliestPending(state);
    const dueAt = Math.round(next.dueAt);
    state.entries.set(id, { id, state: 'pending', dueAt, scheduledAt: now, attempt: 0, fencingToken: 0, leaseExpiresAt: 0, lastError: undefined, payload: next.payload });
    this.wakeUps.wakeIfAhead(slot, before, dueAt);
    return 'acked';
  }

  async ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> {
    this.slots.assertOpen();
    return entries.map(({ id, fencingToken }) => this.ackOne(slot, id, fencingToken));
  }

  async renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const now = this.clock.now();
    return entries.map(({ id, fencingToken, leaseMs }): RenewResult => {
      if (!holds(state, id, fencingToken)) {
        const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
        return forwardedTo === undefined ? 'stale' : { forwardedTo };
      }
      const entry = state.entries.get(id)!;
      entry.leaseExpiresAt = Math.max(entry.leaseExpiresAt, now + Math.max(1, Math.round(leaseMs)));
      return { leaseExpiresAt: entry.leaseExpiresAt };
    });
  }

  private ackOne(slot: SlotRef, id: string, fencingToken: number): AckResult {
    const state = this.slots.get(slot);
    if (!holds(state, id, fencingToken)) {
      const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
      return forwardedTo === undefined ? 'stale' : { forwardedTo };
    }
    state.entries.delete(id);
    return 'acked';
  }

  async fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const entry = state.entries.get(id);
    if (!entry || !holds(state, id, fencingToken)) {
      const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
      return forwardedTo === undefined ? { outcome: 'stale' } : { outcome: 'forwarded', slot: forwardedTo };
    }
    const now = this.clock.now();
    entry.lastError = truncateError(failure.error);
    entry.fencingToken = 0;
    entry.leaseExpiresAt = 0;
    if (entry.attempt >= failure.maxAttempts) {
      entry.state = 'dead';
      entry.dueAt = now;
      return { outcome: 'dead', deadAt: now };
    }
    const before = earliestPending(state);
    const retryAt = now + Math.max(0, Math.round(failure.retryDelayMs));
    entry.state = 'pending';
    entry.dueAt = retryAt;
    this.wakeUps.wakeIfAhead(slot, before, retryAt);
    return { outcome: 'retried', retryAt };
  }

  async release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult> {
    this.slots.assertOpen();
    const now = this.clock.now();
    const state = this.slots.get(slot);
    const before = earliestPending(state);
    const result: ReleaseResult = { released: 0, forwarded: [] };
    for (const { id, fencingToken } of entries) {
      const entry = state.entries.get(id);
      if (!entry || !holds(state, id, fencingToken)) {
        const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
        if (forwardedTo !== undefined) result.forwarded.push({ id, slot: forwardedTo });
        continue;
      }
      entry.state = 'pending';
      entry.dueAt = now;
      entry.attempt = Math.max(0, entry.attempt - 1);
      entry.fencingToken = 0;
      entry.leaseExpiresAt = 0;
      result.released += 1;
    }
    if (result.released > 0) this.wakeUps.wakeIfAhead(slot, before, now);
    return result;
  }
}
