import type { ScheduleOutcome } from '../types.js';
import { isSlotRefusal } from './item-results.js';
import type { SlotRef, StoreScheduleEntry, StoreScheduleItem } from './timeout-store.js';

/** What one stored schedule came back with. */
type Scheduled = { outcome: ScheduleOutcome; dueAt: number };

/** One schedule waiting for the end of the tick, and how to settle its caller. */
export interface PendingSchedule {
  id: string;
  entry: StoreScheduleEntry;
  /** Set on the items of one `scheduleMany` call: they travel in one script call, never split. */
  unit?: object;
  resolve(result: Scheduled): void;
  reject(error: unknown): void;
}

/**
 * The items of one `scheduleMany` call, settled together: one promise for the call rather than one
 * per item (a promise, its settled record and two closures per item were a tenth of a bulk call's
 * client CPU). Settles once every item has: with each item's result, a slot migration's refusal of
 * an item being that item's result; any other failure fails the call (the first in item order).
 */
class BulkUnit {
  private readonly results: (Scheduled | Error)[];
  private remaining: number;
  private failure: { index: number; error: unknown } | undefined;

  constructor(
    count: number,
    private readonly resolve: (results: (Scheduled | Error)[]) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.results = new Array(count);
    this.remaining = count;
  }

  settle(index: number, result: Scheduled | Error): void {
    this.results[index] = result;
    this.done();
  }

  fail(index: number, error: unknown): void {
    if (isSlotRefusal(error)) this.results[index] = error;
    else if (this.failure === undefined || index < this.failure.index) this.failure = { index, error };
    this.done();
  }

  private done(): void {
    if (--this.remaining > 0) return;
    if (this.failure) this.reject(this.failure.error);
    else this.resolve(this.results);
  }
}

/** One item of a `scheduleMany` call in the batch: settles its unit, not a promise of its own. */
class UnitItem implements PendingSchedule {
  constructor(
    readonly id: string,
    readonly entry: StoreScheduleEntry,
    readonly unit: BulkUnit,
    private readonly index: number,
  ) {}

  resolve(result: Scheduled): void {
    this.unit.settle(this.index, result);
  }

  reject(error: unknown): void {
    this.unit.fail(this.index, error);
  }
}

interface Batch {
  slot: SlotRef;
  entries: PendingSchedule[];
}

/**
 * The batching step of the Redis store's schedules (`RedisWrites`), its side of what
 * `engine/ack-batcher.ts` does for acks: the schedules made in one tick for one slot (and routing
 * layout) wait here, and the store takes them as script calls of up to `maxPerCall` entries, at the
 * end of the tick (`takeAll`) or at once when another call on the slot must not overtake them
 * (`take`). The items of one `scheduleMany` call are never split over two calls. It sends nothing
 * itself: the store sends what it takes and settles each entry.
 */
export class ScheduleCoalescer {
  private readonly batches = new Map<string, Batch>();

  constructor(private readonly maxPerCall: number) {}

  /** Queues one schedule; settles when the store settles it. */
  add(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<Scheduled> {
    return new Promise((resolve, reject) => this.batchOf(slot).entries.push({ id, entry, resolve, reject }));
  }

  /**
   * Queues the items of one `scheduleMany` call, kept together; settles with each item's result (a
   * slot migration's refusal of an item is its result), or fails as a whole when the call failed.
   */
  addUnit(slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(Scheduled | Error)[]> {
    const batch = this.batchOf(slot);
    return new Promise((resolve, reject) => {
      const unit = new BulkUnit(items.length, resolve, reject);
      items.forEach(({ id, entry }, index) => batch.entries.push(new UnitItem(id, entry, unit, index)));
    });
  }

  /** The script calls of what waits for `slot`, taken out (none when nothing waits). */
  take(slot: SlotRef): PendingSchedule[][] {
    const key = batchKey(slot);
    const batch = this.batches.get(key);
    if (!batch) return [];
    this.batches.delete(key);
    return this.chunks(batch);
  }

  /** The script calls of everything waiting, per slot in the order the slots were first used, taken out. */
  takeAll(): { slot: SlotRef; calls: PendingSchedule[][] }[] {
    const batches = [...this.batches.values()];
    this.batches.clear();
    return batches.map((batch) => ({ slot: batch.slot, calls: this.chunks(batch) }));
  }

  private batchOf(slot: SlotRef): Batch {
    const key = batchKey(slot);
    let batch = this.batches.get(key);
    if (!batch) {
      batch = { slot, entries: [] };
      this.batches.set(key, batch);
    }
    return batch;
  }

  private chunks(batch: Batch): PendingSchedule[][] {
    const calls: PendingSchedule[][] = [];
    let chunk: PendingSchedule[] = [];
    for (const pending of batch.entries) {
      const sameUnit = pending.unit !== undefined && chunk.at(-1)?.unit === pending.unit;
      if (chunk.length >= this.maxPerCall && !sameUnit) {
        calls.push(chunk);
        chunk = [];
      }
      chunk.push(pending);
    }
    if (chunk.length > 0) calls.push(chunk);
    return calls;
  }
}

/** Where a batch of schedules waits for the end of the tick: one batch per slot and routing layout. */
function batchKey(slot: SlotRef): string {
  return `${slot.topic}\u0000${slot.slot}\u0000${slot.slots ?? 0}`;
}
