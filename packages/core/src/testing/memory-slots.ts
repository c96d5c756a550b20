import type { ScheduleIfExists } from '../types.js';
import type { SlotRef, StoredTimeout } from '../store/timeout-store.js';
import { StoreClosedError } from '../store/store-closed.error.js';
import { testingMessages } from './testing.messages.js';

/**
 * One stored timeout of `MemoryTimeoutStore`, in any state: what `get` reads back, with its lease
 * and error always present. `dueAt` is the due time while pending, the due time of the claimed run
 * while firing, the time of death when dead.
 */
export interface MemoryEntry extends Omit<StoredTimeout, 'leaseExpiresAt' | 'lastError'> {
  /** Lease expiry while firing; 0 otherwise. `fencingToken` is likewise 0 unless firing (as the Redis store reports it). */
  leaseExpiresAt: number;
  lastError: string | undefined;
}

/** One slot of one topic: its entries and fencing counter (a hash tag's keys in Redis). */
export interface MemorySlot {
  readonly ref: SlotRef;
  entries: Map<string, MemoryEntry>;
  /** Last fencing token handed out in this slot. */
  seq: number;
  /** When the slot was paused (store clock), or null: its pause marker in Redis. */
  pausedAt: number | null;
  /** The rate limit's token bucket: tokens left at `tokensAt`, or null before the first limited claim. */
  tokens: number | null;
  tokensAt: number;
}

/** The key of a slot in the maps of the memory store. */
export function slotKey(slot: SlotRef): string {
  return `${slot.topic}\u0000${slot.slot}`;
}

/** Every slot the memory store holds, created on first use, and whether the store was closed. */
export class MemorySlots {
  private readonly slots = new Map<string, MemorySlot>();
  /** Set by `MemoryTimeoutStore.close`: every call of its roles fails from then on. */
  closed = false;

  /** Throws `StoreClosedError` once the store was closed (every call of the store's roles begins with it). */
  assertOpen(): void {
    if (this.closed) throw new StoreClosedError(testingMessages.closed());
  }

  /** The state of `slot` (an empty one the first time). */
  get(slot: SlotRef): MemorySlot {
    const key = slotKey(slot);
    let state = this.slots.get(key);
    if (!state) {
      state = { ref: { topic: slot.topic, slot: slot.slot }, entries: new Map(), seq: 0, pausedAt: null, tokens: null, tokensAt: 0 };
      this.slots.set(key, state);
    }
    return state;
  }

  /** Every slot used so far. */
  all(): IterableIterator<MemorySlot> {
    return this.slots.values();
  }
}

/** Whether a schedule in mode `ifExists` leaves a pending or firing timeout due at `current` as it is (see `ScheduleIfExists`). */
export function keepsExisting(ifExists: ScheduleIfExists | undefined, dueAt: number, current: number): boolean {
  if (ifExists === 'keep') return true;
  if (ifExists === 'earlier') return dueAt >= current;
  if (ifExists === 'later') return dueAt <= current;
  return false;
}

/** True when `id` is firing with `fencingToken` as its current token. */
export function holds(state: MemorySlot, id: string, fencingToken: number): boolean {
  const entry = state.entries.get(id);
  return entry !== undefined && entry.state === 'firing' && entry.fencingToken === fencingToken;
}

/** Earliest due time of the slot's pending entries, as `ZRANGE due 0 0` answers. */
export function earliestPending(state: MemorySlot): number | null {
  let earliest: number | null = null;
  for (const entry of state.entries.values()) {
    if (entry.state === 'pending' && (earliest === null || entry.dueAt < earliest)) earliest = entry.dueAt;
  }
  return earliest;
}

/** Earliest lease expiry of the slot's firing entries, as `ZRANGE lease 0 0` answers. */
export function earliestLease(state: MemorySlot): number | null {
  let earliest: number | null = null;
  for (const entry of state.entries.values()) {
    if (entry.state === 'firing' && (earliest === null || entry.leaseExpiresAt < earliest)) earliest = entry.leaseExpiresAt;
  }
  return earliest;
}

/** Pending entries by due time, ties by id bytes: the order of a Redis sorted set. */
export function pendingInOrder(state: MemorySlot): MemoryEntry[] {
  return [...state.entries.values()].filter((entry) => entry.state === 'pending').sort((a, b) => a.dueAt - b.dueAt || compareIds(a.id, b.id));
}

/** Dead entries by time of death, ties by id bytes. */
export function deadInOrder(state: MemorySlot): MemoryEntry[] {
  return [...state.entries.values()].filter((entry) => entry.state === 'dead').sort((a, b) => a.dueAt - b.dueAt || compareIds(a.id, b.id));
}

/** The entries of a listing from `offset`, at most `limit` (none for a limit of 0 or less). */
export function page(entries: readonly MemoryEntry[], offset: number, limit: number): MemoryEntry[] {
  if (limit <= 0) return [];
  const start = Math.max(0, offset);
  return entries.slice(start, start + limit);
}

/** An entry's score in the Redis set of its state. */
export function scoreOf(entry: MemoryEntry): number {
  return entry.state === 'firing' ? entry.leaseExpiresAt : entry.dueAt;
}

/** Compares ids by their UTF-8 bytes, as Redis orders members of equal score. */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
