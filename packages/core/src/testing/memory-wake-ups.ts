import type { SlotRef } from '../store/timeout-store.js';
import type { MemorySlots } from './memory-slots.js';

interface Subscription {
  topics: ReadonlySet<string>;
  onWake: (slot: SlotRef, dueAt: number) => void;
  onLayout: ((topic: string) => void) | undefined;
  onCancel: ((topic: string, id: string, fencingToken: number) => void) | undefined;
}

/**
 * The wake-ups of `MemoryTimeoutStore`: subscribers are called asynchronously, as a Redis message
 * would arrive, when a schedule lands ahead of a slot's earliest due time, when a slot migration
 * changes a slot (`layout`), when a cancel removes a firing timeout (`cancel`, with the fencing
 * token of its delivery), and whenever the clock moves, for every slot that then holds a due
 * timeout or an expired lease.
 */
export class MemoryWakeUps {
  private readonly subscriptions = new Set<Subscription>();

  /** Adds a subscriber to `topics`; returns its unsubscribe. */
  subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onLayout?: (topic: string) => void,
    onCancel?: (topic: string, id: string, fencingToken: number) => void,
  ): () => Promise<void> {
    const subscription: Subscription = { topics: new Set(topics), onWake, onLayout, onCancel };
    this.subscriptions.add(subscription);
    return async () => {
      this.subscriptions.delete(subscription);
    };
  }

  /** Drops every subscriber (the store was closed). */
  clear(): void {
    this.subscriptions.clear();
  }

  /** Tells subscribers when `dueAt` is ahead of everything the slot held before (or it was empty). */
  wakeIfAhead(slot: SlotRef, before: number | null, dueAt: number): void {
    if (before === null || dueAt < before) this.notify(slot, dueAt);
  }

  /** After the clock moved: wakes every subscribed slot that holds a due timeout or an expired lease. */
  wakeDueSlots(slots: MemorySlots, now: number): void {
    if (this.subscriptions.size === 0) return;
    for (const state of slots.all()) {
      let earliest: number | null = null;
      for (const entry of state.entries.values()) {
        const at = entry.state === 'pending' ? entry.dueAt : entry.state === 'firing' ? entry.leaseExpiresAt : null;
        if (at !== null && at <= now && (earliest === null || at < earliest)) earliest = at;
      }
      if (earliest !== null) this.notify(state.ref, earliest);
    }
  }

  /** Tells the topic's subscribers that a slot migration changed one of its slots. */
  layoutChanged(topic: string): void {
    for (const subscription of this.subscriptions) {
      if (subscription.topics.has(topic)) queueMicrotask(() => subscription.onLayout?.(topic));
    }
  }

  /** Tells the topic's subscribers that a cancel removed the firing timeout `id` held by `fencingToken`. */
  cancelled(topic: string, id: string, fencingToken: number): void {
    for (const subscription of this.subscriptions) {
      if (!subscription.topics.has(topic)) continue;
      queueMicrotask(() => {
        if (this.subscriptions.has(subscription)) subscription.onCancel?.(topic, id, fencingToken);
      });
    }
  }

  /** Calls subscribers of the slot's topic asynchronously, as a Redis message would arrive. */
  notify(slot: SlotRef, dueAt: number): void {
    for (const subscription of this.subscriptions) {
      if (!subscription.topics.has(slot.topic)) continue;
      queueMicrotask(() => {
        if (this.subscriptions.has(subscription)) subscription.onWake({ topic: slot.topic, slot: slot.slot }, dueAt);
      });
    }
  }
}
