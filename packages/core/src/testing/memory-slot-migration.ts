import type { CopiedEntry, ExportedEntries, MovedEntry, SlotMarker, SlotRef, TopicLayout, LayoutMigration } from '../store/timeout-store.js';
import { bucketOf } from '../store/slot-of.js';
import type { MemorySlotLayouts } from './memory-slot-layouts.js';
import { scoreOf, type MemoryEntry, type MemorySlots } from './memory-slots.js';
import type { MemoryWakeUps } from './memory-wake-ups.js';

/**
 * The slot-count change calls of `MemoryTimeoutStore`, as the Redis store makes them
 * (store/redis-slot-migration.ts): the recorded layouts and markers (`MemorySlotLayouts`), and
 * entries copied between slots as opaque values, each dropped or taken back only while still
 * exactly as copied.
 */
export class MemorySlotMigration implements LayoutMigration {
  constructor(
    private readonly slots: MemorySlots,
    private readonly layouts: MemorySlotLayouts,
    private readonly wakeUps: MemoryWakeUps,
  ) {}

  async readLayout(topic: string): Promise<TopicLayout | null> {
    this.slots.assertOpen();
    return this.layouts.read(topic);
  }

  async claimLayout(topic: string, slots: number): Promise<TopicLayout> {
    this.slots.assertOpen();
    return this.layouts.claim(topic, slots);
  }

  async beginMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.slots.assertOpen();
    return this.layouts.begin(topic, from, to);
  }

  async finishMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    this.slots.assertOpen();
    return this.layouts.finish(topic, from, to);
  }

  async markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void> {
    this.slots.assertOpen();
    this.layouts.mark(slot, marker);
    this.wakeUps.layoutChanged(slot.topic);
  }

  async bucketIds(slot: SlotRef, bucket: number): Promise<string[]> {
    this.slots.assertOpen();
    return [...this.slots.get(slot).entries.keys()].filter((id) => bucketOf(id) === bucket);
  }

  async exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    const entries: MovedEntry[] = [];
    for (const id of ids) {
      const entry = state.entries.get(id);
      if (entry) entries.push({ id, state: entry.state, score: scoreOf(entry), value: JSON.stringify(entry) });
    }
    return { counter: state.seq, entries };
  }

  async importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    state.seq = Math.max(state.seq, counter);
    let earliest: number | null = null;
    const written = entries.map((moved) => {
      if (state.entries.has(moved.id)) return false;
      state.entries.set(moved.id, JSON.parse(moved.value) as MemoryEntry);
      if (moved.state !== 'dead' && (earliest === null || moved.score < earliest)) earliest = moved.score;
      return true;
    });
    if (earliest !== null) this.wakeUps.notify(slot, earliest);
    return written;
  }

  async dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
    return entries.map((moved) => {
      const entry = state.entries.get(moved.id);
      if (!entry || JSON.stringify(entry) !== moved.value) return false;
      state.entries.delete(moved.id);
      if (entry.state === 'firing') this.layouts.forward(slot, moved.id, entry.fencingToken, moved.target);
      return true;
    });
  }

  async unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number> {
    this.slots.assertOpen();
    const state = this.slots.get(slot);
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
}
