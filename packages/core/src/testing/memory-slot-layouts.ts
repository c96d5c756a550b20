import type { SlotMarker, SlotRef, TopicLayout } from '../store/timeout-store.js';
import { SlotLockedError } from '../store/slot-locked.error.js';
import { SlotMovedError } from '../store/slot-moved.error.js';
import { bucketOf } from '../store/slot-of.js';
import { testingMessages } from './testing.messages.js';
import { slotKey } from './memory-slots.js';

/**
 * What `MemoryTimeoutStore` keeps about changes of slot count, as the Redis store keeps it in the
 * topics registry, the slots' layout markers and their forwards (docs/REDIS-LAYOUT.md, "Changing a
 * topic's slot count"): the same checks, with the same errors.
 */
export class MemorySlotLayouts {
  private readonly registry = new Map<string, string>();
  private readonly markers = new Map<string, SlotMarker>();
  private readonly forwards = new Map<string, Map<string, { token: number; slot: number }>>();

  /** The recorded layout of a topic, or null. */
  read(topic: string): TopicLayout | null {
    const value = this.registry.get(topic);
    if (value === undefined) return null;
    const [slots, migratingTo] = value.split('>').map(Number);
    return migratingTo === undefined ? { slots: slots! } : { slots: slots!, migratingTo };
  }

  claim(topic: string, slots: number): TopicLayout {
    if (!this.registry.has(topic)) this.registry.set(topic, String(slots));
    return this.read(topic)!;
  }

  begin(topic: string, from: number, to: number): TopicLayout {
    const value = this.registry.get(topic);
    if (value === undefined || value === String(from)) this.registry.set(topic, `${from}>${to}`);
    return this.read(topic)!;
  }

  finish(topic: string, from: number, to: number): TopicLayout {
    if (this.registry.get(topic) === `${from}>${to}`) this.registry.set(topic, String(to));
    return this.read(topic)!;
  }

  mark(slot: SlotRef, marker: SlotMarker | null): void {
    if (marker === null) this.markers.delete(slotKey(slot));
    else this.markers.set(slotKey(slot), { ...marker });
  }

  /** The data bucket a migration is moving in the slot now (claims skip its ids), or undefined. */
  movingBucket(slot: SlotRef): number | undefined {
    return this.markers.get(slotKey(slot))?.movingBucket;
  }

  /**
   * Throws as `check_layout` refuses in Redis a call on the ids `ids` (all of the slot when
   * omitted): one of them is in the bucket being moved, or was moved while the caller routes by
   * another slot count.
   */
  check(slot: SlotRef, ids?: readonly string[]): void {
    const marker = this.markers.get(slotKey(slot));
    if (!marker) return;
    const { slots, movingBucket } = marker;
    const routedElsewhere = slot.slots !== undefined && slot.slots !== slots;
    if (movingBucket === undefined) {
      if (routedElsewhere) throw new SlotMovedError(testingMessages.slotMoved(slots), slots);
      return;
    }
    if (ids === undefined) throw new SlotLockedError(testingMessages.slotLocked(slots), slots);
    for (const id of ids) {
      const bucket = bucketOf(id);
      if (bucket === movingBucket) throw new SlotLockedError(testingMessages.slotLocked(slots), slots);
      if (routedElsewhere && bucket < movingBucket) throw new SlotMovedError(testingMessages.slotMoved(slots), slots);
    }
  }

  /** Records that the delivery of `id` holding `token` was moved to slot `target`. */
  forward(slot: SlotRef, id: string, token: number, target: number): void {
    const key = slotKey(slot);
    let forwards = this.forwards.get(key);
    if (!forwards) {
      forwards = new Map();
      this.forwards.set(key, forwards);
    }
    forwards.set(id, { token, slot: target });
  }

  /** The slot the delivery of `id` holding `token` was moved to, or undefined. */
  forwarded(slot: SlotRef, id: string, token: number): number | undefined {
    const forward = this.forwards.get(slotKey(slot))?.get(id);
    return token > 0 && forward?.token === token ? forward.slot : undefined;
  }
}
