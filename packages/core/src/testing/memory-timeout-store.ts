import type { CancelResult, ScheduleOutcome } from '../types.js';
import type { Deliveries, LayoutMigration, ScheduleWrites, SlotRef, SlotStats, StoredDeadLetter, StoredPendingEntry,
  StoredFiringEntry, StoredTimeout, StoreReads, StoreTopic, TimeoutStore } from '../store/timeout-store.js';
import type { PauseState, ResumeResult } from '../store/timeout-store.js';
import type { StoreScheduleEntry, StoreScheduleItem, StoreScheduleOutcome } from '../store/timeout-store.js';
import { itemResults } from '../store/item-results.js';
import { ManualClock } from './manual-clock.js';
import { MemorySlotLayouts } from './memory-slot-layouts.js';
import { MemorySlotMigration } from './memory-slot-migration.js';
import { MemoryWakeUps } from './memory-wake-ups.js';
import { MemoryDeliveries } from './memory-deliveries.js';
import { compareIds, deadInOrder, earliestPending, keepsExisting, MemorySlots, page, pendingInOrder, type MemoryEntry, type MemorySlot } from './memory-slots.js';

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
  readonly writes: ScheduleWrites;
  /** The worker calls: testing/memory-deliveries.ts. */
  readonly deliveries: Deliveries;
  readonly reads: StoreReads;
  /** Slot-count changes: testing/memory-slot-migration.ts. */
  readonly layout: LayoutMigration;
  private readonly slots = new MemorySlots();
  private readonly wakeUps = new MemoryWakeUps();
  private readonly stopClockListener: () => void;

  /** @param clock the store clock; a new `ManualClock` (starting at `Date.now()`) when omitted. */
  constructor(readonly clock: ManualClock = new ManualClock()) {
    const layouts = new MemorySlotLayouts();
    this.writes = new MemoryWrites(clock, this.slots, layouts, this.wakeUps);
    this.deliveries = new MemoryDeliveries(clock, this.slots, layouts, this.wakeUps);
    this.reads = new MemoryReads(clock, this.slots, layouts, this.wakeUps);
    this.layout = new MemorySlotMigration(this.slots, layouts, this.wakeUps);
    this.stopClockListener = clock.onAdvance((now) => this.wakeUps.wakeDueSlots(this.slots, now));
  }

  async init(_topics: readonly StoreTopic[] = []): Promise<void> {
    this.slots.assertOpen();
  }

  async now(): Promise<number> {
    this.slots.assertOpen();
    return this.clock.now();
  }

  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    _onResubscribed: () => void,
    onLayout?: (topic: string) => void,
    onCancel?: (topic: string, id: string, fencingToken: number) => void,
  ): Promise<() => Promise<void>> {
    this.slots.assertOpen();
    return this.wakeUps.subscribe(topics, onWake, onLayout, onCancel);
  }

  async ping(): Promise<number> {
    this.slots.assertOpen();
    return 0;
  }

  async close(): Promise<void> {
    if (this.slots.closed) return;
    this.slots.closed = true;
    this.wakeUps.clear();
    this.stopClockListener();
  }
}

/** What each role of the memory store works on. */
abstract class MemoryRole {
  constructor(
    protected readonly clock: ManualClock,
    protected readonly slots: MemorySlots,
    protected readonly layouts: MemorySlotLayouts,
    protected readonly wakeUps: MemoryWakeUps,
  ) {}
}

/** The scheduling writes of `MemoryTimeoutStore`, as the Redis store's scripts make them. */
class MemoryWrites extends MemoryRole implements ScheduleWrites {
  async schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }> {
    this.slots.assertOpen();
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
    this.slots.assertOpen();
    this.layouts.check(slot, [id]);
    const state = this.slots.get(slot);
    const entry = state.entries.get(id);
    if (entry?.state === 'pending') {
      state.entries.delete(id);
      return 'cancelled';
    }
    if (entry?.state !== 'firing') return 'not_found';
    // Removed for good, as cancel.lua does: the running delivery's ack and failure record are refused.
    state.entries.delete(id);
    this.wakeUps.cancelled(slot.topic, id, entry.fencingToken);
    return 'firing';
  }
}

/** The reads and dead-letter operations of `MemoryTimeoutStore`. */
class MemoryReads extends MemoryRole implements StoreReads {
  async get(slot: SlotRef, id: string): Promise<StoredTimeout | null> {
    this.slots.assertOpen();
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

  async stats(slot: SlotRef): Promise<SlotStats> {
    this.slots.assertOpen();
    const now = this.clock.now();
    const counts = { pending: 0, firing: 0, dead: 0 };
    for (const entry of this.slots.get(slot).entries.values()) counts[entry.state] += 1;
    const state = this.slots.get(slot);
    const earliest = earliestPending(state);
    return { ...counts, oldestOverdueDueAt: earliest !== null && earliest <= now ? earliest : null, now, pausedAt: state.pausedAt };
  }

  async listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]> {
    this.slots.assertOpen();
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
    this.slots.assertOpen();
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
    this.slots.assertOpen();
    this.layouts.check(slot, ids);
    const state = this.slots.get(slot);
    const chosen = this.chosenDead(state, ids);
    for (const entry of chosen) state.entries.delete(entry.id);
    return chosen.length;
  }

  async listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]> {
    this.slots.assertOpen();
    return page(pendingInOrder(this.slots.get(slot)), offset, limit).map((entry) => ({ id: entry.id, dueAt: entry.dueAt }));
  }

  async listFiring(slot: SlotRef, offset: number, limit: number): Promise<StoredFiringEntry[]> {
    this.slots.assertOpen();
    const firing = [...this.slots.get(slot).entries.values()].filter((entry) => entry.state === 'firing');
    firing.sort((a, b) => a.leaseExpiresAt - b.leaseExpiresAt || compareIds(a.id, b.id));
    return page(firing, offset, limit).map((entry) => ({ id: entry.id, leaseExpiresAt: entry.leaseExpiresAt }));
  }

  async pause(slot: SlotRef, since?: number): Promise<PauseState> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const now = this.clock.now();
    state.pausedAt ??= since === undefined ? now : Math.min(since, now);
    return { now, pausedAt: state.pausedAt };
  }

  async pauseState(slot: SlotRef): Promise<PauseState> {
    this.slots.assertOpen();
    return { now: this.clock.now(), pausedAt: this.slots.get(slot).pausedAt };
  }

  async resume(slot: SlotRef, shift: boolean): Promise<ResumeResult> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const now = this.clock.now();
    const { pausedAt } = state;
    if (pausedAt === null) return { now, pausedAt, shifted: 0 };
    state.pausedAt = null;
    let shifted = 0;
    const delta = now - pausedAt;
    if (shift && delta > 0) {
      // The due time moves, scheduledAt stays (as the Redis store moves the stored offset with it).
      for (const entry of pendingInOrder(state)) {
        entry.dueAt += delta;
        shifted += 1;
      }
    }
    this.wakeUps.notify(slot, earliestPending(state) ?? now);
    return { now, pausedAt, shifted };
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
}
