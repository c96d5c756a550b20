import type { CancelResult, ScheduleIfExists, ScheduleOutcome, TimeoutState } from '../types.js';
import type {
  AckEntry,
  AckResult,
  CopiedEntry,
  ClaimedTimeout,
  ClaimIncident,
  ExportedEntries,
  MovedEntry,
  ReleaseResult,
  SlotMarker,
  TopicLayout,
  ClaimResult,
  LeaseExpiryPolicy,
  FailOutcome,
  SlotRef,
  SlotStats,
  StoredDeadLetter,
  StoredPendingEntry,
  StoredTimeout,
  StoreFailure,
  StoreScheduleEntry,
  StoreScheduleItem,
  StoreScheduleOutcome,
  StoreTopic,
  LeaseRenewal,
  RenewResult,
  TimeoutStore,
} from '../store/timeout-store.js';
import { MAX_CLAIM, RECOVER_PER_CLAIM } from '../store/timeout-store.js';
import { StoreClosedError } from '../store/store-closed.error.js';
import { LEASE_EXPIRED_ERROR, truncateError } from '../store/stored-error.js';
import { retryDelayMs } from '../engine/retry-backoff.js';
import { DEFAULT_LEASE_EXPIRY } from '../validation/options.js';
import { ManualClock } from './manual-clock.js';
import { MemorySlotLayouts } from './memory-slot-layouts.js';
import { bucketOf } from '../store/slot-of.js';
import { testingMessages } from './testing.messages.js';
import { itemResults } from '../store/item-results.js';

/** Whether a schedule in mode `ifExists` leaves a pending or firing timeout due at `current` as it is (see `ScheduleIfExists`). */
function keepsExisting(ifExists: ScheduleIfExists | undefined, dueAt: number, current: number): boolean {
  if (ifExists === 'keep') return true;
  if (ifExists === 'earlier') return dueAt >= current;
  if (ifExists === 'later') return dueAt <= current;
  return false;
}

interface MemoryEntry {
  id: string;
  state: TimeoutState;
  /** Pending: due time. Firing: due time of the claimed run. Dead: time of death. */
  dueAt: number;
  scheduledAt: number;
  attempt: number;
  /** Current token while firing; 0 otherwise (as the Redis store reports it). */
  fencingToken: number;
  /** Lease expiry while firing; 0 otherwise. */
  leaseExpiresAt: number;
  lastError: string | undefined;
  payload: string;
}

interface MemorySlot {
  entries: Map<string, MemoryEntry>;
  /** Last fencing token handed out in this slot. */
  seq: number;
}

interface Subscription {
  topics: ReadonlySet<string>;
  onWake: (slot: SlotRef, dueAt: number) => void;
  onLayout: ((topic: string) => void) | undefined;
}

/**
 * An in-memory `TimeoutStore` driven by a `ManualClock`, for unit tests of code that schedules or
 * handles timeouts: no Redis, no waiting. It passes the same contract suite as the Redis store, so
 * upserts, claims, leases, fencing tokens, retries, dead letters and release behave the same.
 *
 * ```ts
 * const clock = new ManualClock();
 * const timeouts = new DurableTimeouts({ store: new MemoryTimeoutStore(clock), topics: { payment: {} } });
 * ```
 *
 * Wake-ups: subscribers are called when a schedule lands ahead of a slot's earliest due time (as
 * with Redis), and also whenever the clock moves, for every slot that then holds a due timeout or
 * an expired lease, so pollers sleeping on real timers fire at once after `clock.advanceBy(...)`.
 *
 * State lives in this object: two engines given the same instance share it, like two processes
 * on one Redis. Nothing is persisted.
 */
export class MemoryTimeoutStore implements TimeoutStore {
  private readonly slots = new Map<string, MemorySlot>();
  private readonly layouts = new MemorySlotLayouts();
  private readonly subscriptions = new Set<Subscription>();
  private readonly stopClockListener: () => void;
  private closed = false;

  /** @param clock the store clock; a new `ManualClock` (starting at `Date.now()`) when omitted. */
  constructor(readonly clock: ManualClock = new ManualClock()) {
    this.stopClockListener = clock.onAdvance((now) => this.wakeDueSlots(now));
  }

  async init(_topics: readonly StoreTopic[] = []): Promise<void> {
    this.assertOpen();
  }

  async now(): Promise<number> {
    this.assertOpen();
    return this.clock.now();
  }

  async schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }> {
    this.assertOpen();
    this.layouts.check(slot, [id]);
    const now = this.clock.now();
    const dueAt = Math.round(entry.at ?? now + (entry.delayMs ?? 0));
    const state = this.slotState(slot);
    const before = earliestPending(state);
    const previous = state.entries.get(id);
    if (previous && previous.state !== 'dead' && keepsExisting(entry.ifExists, dueAt, previous.dueAt)) {
      return { outcome: previous.state === 'pending' ? 'kept' : 'kept_firing', dueAt: previous.dueAt };
    }
    let outcome: ScheduleOutcome = 'created';
    if (previous?.state === 'pending') outcome = 'replaced';
    else if (previous?.state === 'firing') outcome = 'replaced_firing';
    state.entries.set(id, {
      id,
      state: 'pending',
      dueAt,
      scheduledAt: now,
      attempt: 0,
      fencingToken: 0,
      leaseExpiresAt: 0,
      lastError: undefined,
      payload: entry.payload,
    });
    this.wakeIfAhead(slot, before, dueAt);
    return { outcome, dueAt };
  }

  async scheduleMany(slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(StoreScheduleOutcome | Error)[]> {
    // Each call runs to its end before the next starts (no await inside), so the items are applied
    // in order with nothing in between, as one Redis script call would.
    return itemResults(await Promise.allSettled(items.map(({ id, entry }) => this.schedule(slot, id, entry))));
  }

  async cancelMany(slot: SlotRef, ids: readonly string[]): Promise<(CancelResult | Error)[]> {
    return itemResults(await Promise.allSettled(ids.map((id) => this.cancel(slot, id))));
  }

  async cancel(slot: SlotRef, id: string): Promise<CancelResult> {
    this.assertOpen();
    this.layouts.check(slot, [id]);
    const state = this.slotState(slot);
    const entry = state.entries.get(id);
    if (entry?.state === 'pending') {
      state.entries.delete(id);
      return 'cancelled';
    }
    return entry?.state === 'firing' ? 'firing' : 'not_found';
  }

  async get(slot: SlotRef, id: string): Promise<StoredTimeout | null> {
    this.assertOpen();
    this.layouts.check(slot, [id]);
    const entry = this.slotState(slot).entries.get(id);
    if (!entry) return null;
    const stored: StoredTimeout = {
      id,
      state: entry.state,
      dueAt: entry.dueAt,
      scheduledAt: entry.scheduledAt,
      attempt: entry.attempt,
      fencingToken: entry.fencingToken,
      payload: entry.payload,
    };
    if (entry.state === 'firing') stored.leaseExpiresAt = entry.leaseExpiresAt;
    if (entry.lastError !== undefined && entry.lastError !== '') stored.lastError = entry.lastError;
    return stored;
  }

  async claim(slot: SlotRef, limit: number, leaseMs: number, expiry: LeaseExpiryPolicy = DEFAULT_LEASE_EXPIRY): Promise<ClaimResult> {
    this.assertOpen();
    const now = this.clock.now();
    const state = this.slotState(slot);
    // Ids of the bucket a slot migration is moving are left alone until it is moved.
    const busy = this.layouts.movingBucket(slot);
    const movable = (entry: MemoryEntry) => busy === undefined || bucketOf(entry.id) !== busy;
    const expired = [...state.entries.values()]
      .filter((entry) => entry.state === 'firing' && entry.leaseExpiresAt <= now && movable(entry))
      .sort((a, b) => a.leaseExpiresAt - b.leaseExpiresAt || compareIds(a.id, b.id))
      .slice(0, RECOVER_PER_CLAIM);
    const incidents: ClaimIncident[] = expired.map((entry) => this.expireLease(entry, now, expiry));
    const take = Math.max(0, Math.min(Math.floor(limit), MAX_CLAIM));
    const due = pendingInOrder(state)
      .filter((entry) => entry.dueAt <= now && movable(entry))
      .slice(0, take);
    const leaseUntil = now + Math.max(1, Math.round(leaseMs));
    // Tokens stay above the clock in 1/1024 ms, as in the Redis store (see take_tokens in stored.lua).
    state.seq = Math.max(state.seq, now * 1024);
    const claimed: ClaimedTimeout[] = due.map((entry) => {
      state.seq += 1;
      entry.state = 'firing';
      entry.attempt += 1;
      entry.fencingToken = state.seq;
      entry.leaseExpiresAt = leaseUntil;
      return {
        id: entry.id,
        dueAt: entry.dueAt,
        scheduledAt: entry.scheduledAt,
        attempt: entry.attempt,
        fencingToken: entry.fencingToken,
        payload: entry.payload,
      };
    });
    return {
      claimed,
      incidents,
      now,
      nextDueAt: earliestPending(state),
      recovered: expired.length,
      nextLeaseExpiresAt: earliestLease(state),
    };
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
    this.assertOpen();
    return this.ackOne(slot, id, fencingToken);
  }

  async ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> {
    this.assertOpen();
    return entries.map(({ id, fencingToken }) => this.ackOne(slot, id, fencingToken));
  }

  async renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> {
    this.assertOpen();
    const state = this.slotState(slot);
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
    const state = this.slotState(slot);
    if (!holds(state, id, fencingToken)) {
      const forwardedTo = this.layouts.forwarded(slot, id, fencingToken);
      return forwardedTo === undefined ? 'stale' : { forwardedTo };
    }
    state.entries.delete(id);
    return 'acked';
  }

  async fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome> {
    this.assertOpen();
    const state = this.slotState(slot);
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
    this.wakeIfAhead(slot, before, retryAt);
    return { outcome: 'retried', retryAt };
  }

  async release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult> {
    this.assertOpen();
    const now = this.clock.now();
    const state = this.slotState(slot);
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
    if (result.released > 0) this.wakeIfAhead(slot, before, now);
    return result;
  }

  async stats(slot: SlotRef): Promise<SlotStats> {
    this.assertOpen();
    const now = this.clock.now();
    const counts = { pending: 0, firing: 0, dead: 0 };
    for (const entry of this.slotState(slot).entries.values()) counts[entry.state] += 1;
    const earliest = earliestPending(this.slotState(slot));
    return { ...counts, oldestOverdueDueAt: earliest !== null && earliest <= now ? earliest : null, now };
  }

  async listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]> {
    this.assertOpen();
    if (limit <= 0) return [];
    const start = Math.max(0, offset);
    return deadInOrder(this.slotState(slot))
      .slice(start, start + limit)
      .map((entry) => ({
        id: entry.id,
        attempts: entry.attempt,
        lastError: entry.lastError ?? '',
        deadAt: entry.dueAt,
        scheduledAt: entry.scheduledAt,
        payload: entry.payload,
      }));
  }

  async replayDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    this.layouts.check(slot, ids);
    const now = this.clock.now();
    const state = this.slotState(slot);
    const before = earliestPending(state);
    let moved = 0;
    for (const entry of this.chosenDead(state, ids)) {
      entry.state = 'pending';
      entry.dueAt = now;
      entry.attempt = 0;
      entry.lastError = undefined;
      moved += 1;
    }
    if (moved > 0) this.wakeIfAhead(slot, before, now);
    return moved;
  }

  async purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    this.layouts.check(slot, ids);
    const state = this.slotState(slot);
    const chosen = this.chosenDead(state, ids);
    for (const entry of chosen) state.entries.delete(entry.id);
    return chosen.length;
  }

  async readLayout(topic: string): Promise<TopicLayout | null> {
    this.assertOpen();
    return this.layouts.read(topic);
  }

  async claimLayout(topic: string, slots: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.layouts.claim(topic, slots);
  }

  async beginMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.layouts.begin(topic, from, to);
  }

  async finishMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.layouts.finish(topic, from, to);
  }

  async markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void> {
    this.assertOpen();
    this.layouts.mark(slot, marker);
    for (const subscription of this.subscriptions) {
      if (subscription.topics.has(slot.topic)) queueMicrotask(() => subscription.onLayout?.(slot.topic));
    }
  }

  async bucketIds(slot: SlotRef, bucket: number): Promise<string[]> {
    this.assertOpen();
    return [...this.slotState(slot).entries.keys()].filter((id) => bucketOf(id) === bucket);
  }

  async exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries> {
    this.assertOpen();
    const state = this.slotState(slot);
    const entries: MovedEntry[] = [];
    for (const id of ids) {
      const entry = state.entries.get(id);
      if (entry) entries.push({ id, state: entry.state, score: scoreOf(entry), value: JSON.stringify(entry) });
    }
    return { counter: state.seq, entries };
  }

  async importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]> {
    this.assertOpen();
    const state = this.slotState(slot);
    state.seq = Math.max(state.seq, counter);
    let earliest: number | null = null;
    const written = entries.map((moved) => {
      if (state.entries.has(moved.id)) return false;
      state.entries.set(moved.id, JSON.parse(moved.value) as MemoryEntry);
      if (moved.state !== 'dead' && (earliest === null || moved.score < earliest)) earliest = moved.score;
      return true;
    });
    if (earliest !== null) this.notify(slot, earliest);
    return written;
  }

  async dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]> {
    this.assertOpen();
    const state = this.slotState(slot);
    return entries.map((moved) => {
      const entry = state.entries.get(moved.id);
      if (!entry || JSON.stringify(entry) !== moved.value) return false;
      state.entries.delete(moved.id);
      if (entry.state === 'firing') this.layouts.forward(slot, moved.id, entry.fencingToken, moved.target);
      return true;
    });
  }

  async unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number> {
    this.assertOpen();
    const state = this.slotState(slot);
    let removed = 0;
    for (const moved of entries) {
      const entry = state.entries.get(moved.id);
      if (entry && JSON.stringify(entry) === moved.value) {
        state.entries.delete(moved.id);
        removed += 1;
      }
    }
    return removed;
  }

  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    _onResubscribed: () => void,
    onLayout?: (topic: string) => void,
  ): Promise<() => Promise<void>> {
    this.assertOpen();
    const subscription: Subscription = { topics: new Set(topics), onWake, onLayout };
    this.subscriptions.add(subscription);
    return async () => {
      this.subscriptions.delete(subscription);
    };
  }

  async ping(): Promise<number> {
    this.assertOpen();
    return 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscriptions.clear();
    this.stopClockListener();
  }

  async listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]> {
    this.assertOpen();
    if (limit <= 0) return [];
    const start = Math.max(0, offset);
    return pendingInOrder(this.slotState(slot))
      .slice(start, start + limit)
      .map((entry) => ({ id: entry.id, dueAt: entry.dueAt }));
  }

  private slotState(slot: SlotRef): MemorySlot {
    const key = `${slot.topic}\u0000${slot.slot}`;
    let state = this.slots.get(key);
    if (!state) {
      state = { entries: new Map(), seq: 0 };
      this.slots.set(key, state);
    }
    return state;
  }

  private chosenDead(state: MemorySlot, ids: readonly string[] | undefined): MemoryEntry[] {
    if (ids === undefined) return deadInOrder(state);
    const chosen = new Map<string, MemoryEntry>();
    for (const id of ids) {
      const entry = state.entries.get(id);
      if (entry?.state === 'dead') chosen.set(id, entry);
    }
    return [...chosen.values()];
  }

  /** Tells subscribers when `dueAt` is ahead of everything the slot held before (or it was empty). */
  private wakeIfAhead(slot: SlotRef, before: number | null, dueAt: number): void {
    if (before === null || dueAt < before) this.notify(slot, dueAt);
  }

  /** After the clock moved: wakes every subscribed slot that holds a due timeout or an expired lease. */
  private wakeDueSlots(now: number): void {
    if (this.subscriptions.size === 0) return;
    for (const [key, state] of this.slots) {
      let earliest: number | null = null;
      for (const entry of state.entries.values()) {
        const at = entry.state === 'pending' ? entry.dueAt : entry.state === 'firing' ? entry.leaseExpiresAt : null;
        if (at !== null && at <= now && (earliest === null || at < earliest)) earliest = at;
      }
      if (earliest === null) continue;
      const separator = key.lastIndexOf('\u0000');
      this.notify({ topic: key.slice(0, separator), slot: Number(key.slice(separator + 1)) }, earliest);
    }
  }

  /** Calls subscribers of the slot's topic asynchronously, as a Redis message would arrive. */
  private notify(slot: SlotRef, dueAt: number): void {
    for (const subscription of this.subscriptions) {
      if (!subscription.topics.has(slot.topic)) continue;
      queueMicrotask(() => {
        if (this.subscriptions.has(subscription)) subscription.onWake({ topic: slot.topic, slot: slot.slot }, dueAt);
      });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError(testingMessages.closed());
  }
}

/** True when `id` is firing with `fencingToken` as its current token. */
function holds(state: MemorySlot, id: string, fencingToken: number): boolean {
  const entry = state.entries.get(id);
  return entry !== undefined && entry.state === 'firing' && entry.fencingToken === fencingToken;
}

function earliestPending(state: MemorySlot): number | null {
  let earliest: number | null = null;
  for (const entry of state.entries.values()) {
    if (entry.state === 'pending' && (earliest === null || entry.dueAt < earliest)) earliest = entry.dueAt;
  }
  return earliest;
}

/** Earliest lease expiry of the slot's firing entries, as `ZRANGE lease 0 0` answers. */
function earliestLease(state: MemorySlot): number | null {
  let earliest: number | null = null;
  for (const entry of state.entries.values()) {
    if (entry.state === 'firing' && (earliest === null || entry.leaseExpiresAt < earliest)) earliest = entry.leaseExpiresAt;
  }
  return earliest;
}

/** Pending entries by due time, ties by id bytes: the order of a Redis sorted set. */
function pendingInOrder(state: MemorySlot): MemoryEntry[] {
  return [...state.entries.values()].filter((entry) => entry.state === 'pending').sort((a, b) => a.dueAt - b.dueAt || compareIds(a.id, b.id));
}

/** An entry's score in the Redis set of its state. */
function scoreOf(entry: MemoryEntry): number {
  return entry.state === 'firing' ? entry.leaseExpiresAt : entry.dueAt;
}

/** Dead entries by time of death, ties by id bytes. */
function deadInOrder(state: MemorySlot): MemoryEntry[] {
  return [...state.entries.values()].filter((entry) => entry.state === 'dead').sort((a, b) => a.dueAt - b.dueAt || compareIds(a.id, b.id));
}

/** Compares ids by their UTF-8 bytes, as Redis orders members of equal score. */
function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
