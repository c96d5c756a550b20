import type { SlotRef } from './timeout-store.js';

/**
 * Per slot: the data buckets of the next due ids, as the slot's last claim reported them, so that
 * the next claim passes only those keys (the `few` registration of the claim script). Absent after
 * a full batch (a backlog) or before the first claim: the next claim passes every bucket.
 */
export class ClaimHints {
  private readonly hints = new Map<string, number[]>();

  /** The buckets the next claim of `slot` may pass alone, or undefined (pass every bucket). */
  get(slot: SlotRef): number[] | undefined {
    return this.hints.get(key(slot));
  }

  /** What a claim reported; undefined forgets the hint. */
  set(slot: SlotRef, buckets: number[] | undefined): void {
    if (buckets === undefined) this.hints.delete(key(slot));
    else this.hints.set(key(slot), buckets);
  }

  /**
   * A schedule wrote into `buckets`: one of its timeouts may be the slot's next due one, so the next
   * claim passes those buckets too while there is room (`max`); a claim that lacks a bucket is made
   * again with every bucket.
   */
  widen(slot: SlotRef, buckets: Iterable<number>, max: number): void {
    const hint = this.hints.get(key(slot));
    if (!hint) return;
    for (const bucket of buckets) if (hint.length < max && !hint.includes(bucket)) hint.push(bucket);
  }
}

function key(slot: SlotRef): string {
  return `${slot.topic}\u0000${slot.slot}`;
}
