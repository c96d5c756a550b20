import type { ScheduleOutcome } from '../types.js';
import { isItemRefusal } from './item-results.js';
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
    if (isItemRefusal(error)) this.results[index] = error;
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
 * The Redis store's schedule side of what `engine/ack-batcher.ts` does for acks: the schedules made
 * in one tick for one slot (and routing layout) travel as script calls of up to `maxPerCall`
 * entries, sent at the end of the tick, or at once when another call on the slot must not overtake
 * them (`flushSlot`). The items of one `scheduleMany` call are never split over two calls.
 */
export class ScheduleCoalescer {
  private readonly batches = new Map<string, Batch>();

  constructor(
    /** Runs one script call for `entries` and settles each of them (rejecting it is the caller's failure). */
    private readonly run: (slot: SlotRef, entries: readonly PendingSchedule[]) => Promise<void>,
    private readonly maxPerCall: number,
  ) {}

  /** Queues one schedule; settles when its call came back. */
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

  /**
   * Sends the schedules of `slot` still waiting for the end of the tick, before a call on one of
   * its ids goes out: one connection delivers commands in the order they are sent, so calls on one
   * id take effect in the order they were made (`schedule` then `cancel` cancels it).
   */
  flushSlot(slot: SlotRef): void {
    const key = batchKey(slot);
    const batch = this.batches.get(key);
    if (!batch) return;
    this.batches.delete(key);
    this.send(batch);
  }

  private batchOf(slot: SlotRef): Batch {
    const key = batchKey(slot);
    let batch = this.batches.get(key);
    if (!batch) {
      batch = { slot, entries: [] };
      this.batches.set(key, batch);
      if (this.batches.size === 1) process.nextTick(() => this.flushAll());
    }
    return batch;
  }

  private flushAll(): void {
    const batches = [...this.batches.values()];
    this.batches.clear();
    for (const batch of batches) this.send(batch);
  }

  private send(batch: Batch): void {
    const call = (entries: PendingSchedule[]) =>
      this.run(batch.slot, entries).catch((error: unknown) => {
        for (const pending of entries) pending.reject(error);
      });
    let chunk: PendingSchedule[] = [];
    for (const pending of batch.entries) {
      const sameUnit = pending.unit !== undefined && chunk.at(-1)?.unit === pending.unit;
      if (chunk.length >= this.maxPerCall && !sameUnit) {
        void call(chunk);
        chunk = [];
      }
      chunk.push(pending);
    }
    if (chunk.length > 0) void call(chunk);
  }
}

/** Where a batch of schedules waits for the end of the tick: one batch per slot and routing layout. */
function batchKey(slot: SlotRef): string {
  return `${slot.topic}\u0000${slot.slot}\u0000${slot.slots ?? 0}`;
}
