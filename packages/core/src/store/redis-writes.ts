import type { CancelResult, ScheduleOutcome } from '../types.js';
import { FEW_BUCKETS } from '../commands/index.js';
import type { RedisCalls } from './redis-calls.js';
import { redisStoreMessages } from './redis-store.messages.js';
import type { TimeoutKeys } from './timeout-keys.js';
import { StoreClosedError } from './store-closed.error.js';
import type { ClaimHints } from './claim-hints.js';
import { bucketKeys } from './bucket-keys.js';
import { ScheduleCoalescer, type PendingSchedule } from './schedule-coalescer.js';
import type { ReplicationBarrier } from './replication-barrier.js';
import type { ScheduleWrites, SlotRef, StoreScheduleEntry, StoreScheduleItem, StoreScheduleOutcome } from './timeout-store.js';
import { CANCEL_RESULTS, mapCode, refusedItem, SCHEDULE_OUTCOMES, scheduleArgs, unexpected, type ScriptArg } from './redis-replies.js';

/** Most timeouts one schedule script call carries (calls of one tick for one slot are coalesced). */
const SCHEDULE_BATCH = 200;

/**
 * The Redis store's scheduling writes: schedules coalesced per slot and tick into one script call
 * (`ScheduleCoalescer`), cancels after the slot's schedules of the tick, each confirmed on the
 * replicas when `durability` is on. The method docs are on `ScheduleWrites`.
 */
export class RedisWrites implements ScheduleWrites {
  /** The schedules of this tick, per slot, until they are sent. */
  private readonly schedules = new ScheduleCoalescer(SCHEDULE_BATCH);
  /** Whether the end of this tick sends what waits. */
  private sendQueued = false;

  constructor(
    private readonly keys: TimeoutKeys,
    private readonly calls: RedisCalls,
    /** Shared with the deliveries: a schedule widens its slot's claim hint. */
    private readonly claimHints: ClaimHints,
    /** Confirms schedules and cancels on the replicas (`durability`); undefined when the option is off. */
    private readonly barrier: ReplicationBarrier | undefined,
  ) {}

  /** Sends the schedules of this tick for `slot` now, so that a call made after them (a read, a cancel) sees them. */
  flushSlot(slot: SlotRef): void {
    this.send(slot, this.schedules.take(slot));
  }

  /**
   * Schedules one timeout. Calls made in the same tick for the same slot travel as one script
   * call (up to `SCHEDULE_BATCH` each), which is what makes tens of thousands a second possible
   * from one process; each call still gets its own result, in order.
   */
  schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }> {
    if (this.calls.closed) return Promise.reject(new StoreClosedError(redisStoreMessages.closed()));
    const scheduled = this.schedules.add(slot, id, entry);
    this.sendAtEndOfTick();
    return scheduled;
  }

  /**
   * Schedules the items in one script call (however many: a call is never split), queued with the
   * slot's other schedules of this tick so that calls on one id keep their order.
   */
  async scheduleMany(slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(StoreScheduleOutcome | Error)[]> {
    if (items.length === 0) return [];
    this.calls.assertOpen();
    const scheduled = this.schedules.addUnit(slot, items);
    this.sendAtEndOfTick();
    return scheduled;
  }

  /** Cancels the ids in one script call (however many), after the slot's schedules of this tick. */
  async cancelMany(slot: SlotRef, ids: readonly string[]): Promise<(CancelResult | Error)[]> {
    if (ids.length === 0) return [];
    this.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const buckets = bucketKeys(ids, keys.buckets, 3);
    const scriptKeys = [keys.due, keys.lease, keys.layout, ...buckets.keys];
    const args: ScriptArg[] = [slot.slots ?? 0, this.keys.wakeChannel(slot.topic)];
    ids.forEach((id, i) => args.push(id, buckets.keyIndex(i)));
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('cancelMany', buckets.few ? 'cancelManyFew' : 'cancelMany', scriptKeys, args);
    if (!Array.isArray(reply) || reply.length !== ids.length) throw unexpected('cancelMany', reply);
    // A firing id is removed as well (its delivery told to stop): both are writes to confirm.
    if (ticket && reply.some((code) => code === 1 || code === 2)) await this.barrier?.confirm('cancelMany', ticket);
    return reply.map((code: unknown) => refusedItem(code) ?? mapCode(CANCEL_RESULTS, code, 'cancelMany'));
  }

  private async runScheduleBatch(slot: SlotRef, entries: readonly PendingSchedule[]): Promise<void> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    // Each entry names its data bucket by its index in KEYS (see bucket-keys.ts).
    const buckets = bucketKeys(entries.map(({ id }) => id), keys.buckets, 4);
    const script = buckets.few ? 'scheduleFew' : 'schedule';
    const scriptKeys = [keys.due, keys.lease, keys.dead, keys.layout, ...buckets.keys];
    const args: ScriptArg[] = [this.keys.wakeChannel(slot.topic), slot.slot, slot.slots ?? 0, ...scheduleArgs(entries, buckets.keyIndex)];
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('schedule', script, scriptKeys, args);
    if (!Array.isArray(reply) || reply.length !== entries.length * 2) throw unexpected('schedule', reply);
    // A timeout scheduled here may be the slot's next due one: let the next claim pass its bucket
    // too while there is room (a claim that lacks a bucket is only made again with every bucket).
    this.claimHints.widen(slot, buckets.distinct, FEW_BUCKETS);
    if (ticket) await this.barrier?.confirm('schedule', ticket);
    entries.forEach((pending, i) => {
      const code = reply[2 * i];
      // An entry a slot migration refused (its bucket is being moved, or was moved): that call is routed again.
      const refused = refusedItem(code);
      if (refused) pending.reject(refused);
      else pending.resolve({ outcome: mapCode(SCHEDULE_OUTCOMES, code, 'schedule'), dueAt: Number(reply[2 * i + 1]) });
    });
  }

  async cancel(slot: SlotRef, id: string): Promise<CancelResult> {
    this.flushSlot(slot);
    const keys = this.keys.slot(slot.topic, slot.slot);
    const dataKey = this.keys.dataKey(slot.topic, slot.slot, id);
    const ticket = this.barrier?.track(keys.due);
    const reply = await this.calls.script('cancel', 'cancel', [keys.due, keys.lease, dataKey, keys.layout], [
      id,
      slot.slots ?? 0,
      this.keys.wakeChannel(slot.topic),
    ]);
    const result = mapCode(CANCEL_RESULTS, reply, 'cancel');
    if (result !== 'not_found' && ticket) await this.barrier?.confirm('cancel', ticket);
    return result;
  }

  /** Sends everything that waits once this tick's calls are made (one script call per slot and batch). */
  private sendAtEndOfTick(): void {
    if (this.sendQueued) return;
    this.sendQueued = true;
    process.nextTick(() => {
      this.sendQueued = false;
      for (const { slot, calls } of this.schedules.takeAll()) this.send(slot, calls);
    });
  }

  /** Sends the script calls taken from the batching step; a call that fails fails each of its entries. */
  private send(slot: SlotRef, calls: readonly PendingSchedule[][]): void {
    for (const entries of calls) {
      void this.runScheduleBatch(slot, entries).catch((error: unknown) => {
        for (const pending of entries) pending.reject(error);
      });
    }
  }
}
