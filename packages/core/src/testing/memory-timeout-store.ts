import type { CancelResult, ScheduleOutcome } from '../types.js';
import type { AckEntry, AckResult, ClaimResult, FailOutcome, LeaseExpiryPolicy, LeaseRenewal, ReleaseResult, RenewResult, StoreFailure } from '../store/timeout-store.js';
import type { SlotRef, SlotStats, StoredDeadLetter, StoredPendingEntry, StoredTimeout, StoreTopic, TimeoutStore } from '../store/timeout-store.js';
import type { CopiedEntry, ExportedEntries, MovedEntry, SlotMarker, StoreScheduleEntry, StoreScheduleItem, StoreScheduleOutcome, TopicLayout } from '../store/timeout-store.js';
import { StoreClosedError } from '../store/store-closed.error.js';
import { itemResults } from '../store/item-results.js';
import { ManualClock } from './manual-clock.js';
import { MemorySlotLayouts } from './memory-slot-layouts.js';
import { MemorySlotMigration } from './memory-slot-migration.js';
import { MemoryWakeUps } from './memory-wake-ups.js';
import { MemoryDeliveries } from './memory-deliveries.js';
import { deadInOrder, earliestPending, keepsExisting, MemorySlots, page, pendingInOrder, type MemoryEntry, type MemorySlot } from './memory-slots.js';
import { testingMessages } from './testing.messages.js';

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
  private readonly slots = new MemorySlots();
  private readonly layouts = new MemorySlotLayouts();
  private readonly wakeUps = new MemoryWakeUps();
  private readonly migration = new MemorySlotMigration(this.slots, this.layouts, this.wakeUps);
  private readonly deliveries: MemoryDeliveries;
  private readonly stopClockListener: () => void;
  private closed = false;

  /** @param clock the store clock; a new `ManualClock` (starting at `Date.now()`) when omitted. */
  constructor(readonly clock: ManualClock = new ManualClock()) {
    this.deliveries = new MemoryDeliveries(clock, this.slots, this.layouts, this.wakeUps);
    this.stopClockListener = clock.onAdvance((now) => this.wakeUps.wakeDueSlots(this.slots, now));
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
    const state = this.slots.get(slot);
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
    this.wakeUps.wakeIfAhead(slot, before, dueAt);
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
    const state = this.slots.get(slot);
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
    const entry = this.slots.get(slot).entries.get(id);
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

  // Worker calls: testing/memory-deliveries.ts.

  async claim(slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy): Promise<ClaimResult> {
    this.assertOpen();
    return this.deliveries.claim(slot, limit, leaseMs, expiry);
  }

  async ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult> {
    this.assertOpen();
    return this.deliveries.ack(slot, id, fencingToken);
  }

  async ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> {
    this.assertOpen();
    return this.deliveries.ackMany(slot, entries);
  }

  async renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> {
    this.assertOpen();
    return this.deliveries.renewLeases(slot, entries);
  }

  async fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome> {
    this.assertOpen();
    return this.deliveries.fail(slot, id, fencingToken, failure);
  }

  async release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult> {
    this.assertOpen();
    return this.deliveries.release(slot, entries);
  }

  async stats(slot: SlotRef): Promise<SlotStats> {
    this.assertOpen();
    const now = this.clock.now();
    const counts = { pending: 0, firing: 0, dead: 0 };
    for (const entry of this.slots.get(slot).entries.values()) counts[entry.state] += 1;
    const earliest = earliestPending(this.slots.get(slot));
    return { ...counts, oldestOverdueDueAt: earliest !== null && earliest <= now ? earliest : null, now };
  }

  async listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]> {
    this.assertOpen();
    return page(deadInOrder(this.slots.get(slot)), offset, limit).map((entry) => ({
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
    const state = this.slots.get(slot);
    const before = earliestPending(state);
    let moved = 0;
    for (const entry of this.chosenDead(state, ids)) {
      entry.state = 'pending';
      entry.dueAt = now;
      entry.attempt = 0;
      entry.lastError = undefined;
      moved += 1;
    }
    if (moved > 0) this.wakeUps.wakeIfAhead(slot, before, now);
    return moved;
  }

  async purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number> {
    this.assertOpen();
    this.layouts.check(slot, ids);
    const state = this.slots.get(slot);
    const chosen = this.chosenDead(state, ids);
    for (const entry of chosen) state.entries.delete(entry.id);
    return chosen.length;
  }

  // Slot-count changes: testing/memory-slot-migration.ts.

  async readLayout(topic: string): Promise<TopicLayout | null> {
    this.assertOpen();
    return this.migration.readLayout(topic);
  }

  async claimLayout(topic: string, slots: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.migration.claimLayout(topic, slots);
  }

  async beginMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.migration.beginMigration(topic, from, to);
  }

  async finishMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.assertOpen();
    return this.migration.finishMigration(topic, from, to);
  }

  async markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void> {
    this.assertOpen();
    return this.migration.markSlot(slot, marker);
  }

  async bucketIds(slot: SlotRef, bucket: number): Promise<string[]> {
    this.assertOpen();
    return this.migration.bucketIds(slot, bucket);
  }

  async exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries> {
    this.assertOpen();
    return this.migration.exportEntries(slot, ids);
  }

  async importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]> {
    this.assertOpen();
    return this.migration.importEntries(slot, entries, counter);
  }

  async dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]> {
    this.assertOpen();
    return this.migration.dropEntries(slot, entries);
  }

  async unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number> {
    this.assertOpen();
    return this.migration.unimportEntries(slot, entries);
  }

  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    _onResubscribed: () => void,
    onLayout?: (topic: string) => void,
  ): Promise<() => Promise<void>> {
    this.assertOpen();
    return this.wakeUps.subscribe(topics, onWake, onLayout);
  }

  async ping(): Promise<number> {
    this.assertOpen();
    return 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeUps.clear();
    this.stopClockListener();
  }

  async listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]> {
    this.assertOpen();
    return page(pendingInOrder(this.slots.get(slot)), offset, limit).map((entry) => ({ id: entry.id, dueAt: entry.dueAt }));
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

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError(testingMessages.closed());
  }
}
