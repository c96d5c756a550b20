import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { DATA_BUCKETS, slotOf } from '../store/slot-of.js';
import type { LayoutMigration, MovedEntry, SlotRef, TimeoutStore } from '../store/timeout-store.js';

/** Most entries moved by one export / import / drop round. */
const MOVE_BATCH = 500;

/** Progress of a slot migration, after each source slot. */
export interface SlotMigrationProgress {
  topic: string;
  /** The source slot just finished. */
  slot: number;
  /** Source slots finished so far, and in all. */
  done: number;
  total: number;
  /** Timeouts moved so far. */
  moved: number;
}

/** Options of `migrateSlots`. */
export interface SlotMigrationOptions {
  /** Called after each source slot is moved. */
  onProgress?: (progress: SlotMigrationProgress) => void;
}

/** What a slot migration did. */
export interface SlotMigrationReport {
  topic: string;
  from: number;
  to: number;
  /** Pending, firing and dead timeouts moved to their slot of `to`. */
  moved: number;
  /** Source slots moved (the slots whose ids change slot). */
  sourceSlots: number;
  tookMs: number;
}

/**
 * Moves every stored timeout of `topic` (pending, firing and dead) to its slot of a topic of `to`
 * slots, safely while instances of the old and of the new count run. Resumable: run it again after
 * it stopped half-way and it finishes the same move.
 *
 * The store records the move (`from>to`), marks the slots that only the new count uses, then moves
 * the source slots one at a time, and each one data bucket at a time: while a bucket is being
 * moved, calls on its ids wait and claims skip them; its entries whose slot changes are copied to
 * their new slot and removed from the old one only if unchanged meanwhile (a changed one is taken
 * back and moved in the next pass over the bucket), and a moved delivery leaves a forward so its
 * worker's ack lands in the new slot. A paused topic stays paused: the slots it gains are paused
 * before they hold anything, and those a shrink gives up are cleared once empty. Ids of the buckets already moved are sent on to their new
 * slot when a call routed by the old count reaches them. See docs/ENGINE.md, "Changing a topic's
 * slot count".
 */
export async function migrateSlots(store: TimeoutStore, topic: string, to: number, options: SlotMigrationOptions = {}): Promise<SlotMigrationReport> {
  const { layout } = store;
  if (!Number.isInteger(to) || to < 1 || to > 1024 || (to & (to - 1)) !== 0) {
    throw new InvalidOptionsError(errorMessages.invalidSlotCount(topic, to));
  }
  const started = performance.now();
  const recorded = (await layout.readLayout(topic)) ?? (await layout.claimLayout(topic, to));
  if (recorded.migratingTo !== undefined && recorded.migratingTo !== to) {
    throw new InvalidOptionsError(errorMessages.otherMigrationRunning(topic, recorded.slots, recorded.migratingTo, to));
  }
  const from = recorded.slots;
  const report: SlotMigrationReport = { topic, from, to, moved: 0, sourceSlots: 0, tookMs: 0 };
  if (from === to) return { ...report, tookMs: performance.now() - started };

  // Pause marks the slots only the new count uses hold before the move is recorded are left from an
  // earlier, larger layout; one set after it is a pause called meanwhile, which covers both counts.
  const leftover = to > from ? await Promise.all(range(from, to).map(async (slot) => (await store.reads.pauseState({ topic, slot })).pausedAt)) : [];
  await layout.beginMigration(topic, from, to);
  const ref = (slot: number): SlotRef => ({ topic, slot });
  // Before a slot only the new count uses gets a timeout or serves a claim, it takes the topic's
  // pause (from the same time, so a shifting resume moves its timeouts as far), or loses a stale one.
  if (to > from) await carryPause(store, topic, from, to, leftover);
  // Slots only the new count uses serve it from the start; slots both counts use, when shrinking,
  // serve either count (their ids stay where they are).
  if (to > from) for (let slot = from; slot < to; slot++) await layout.markSlot(ref(slot), { slots: to });
  else for (let slot = 0; slot < to; slot++) await layout.markSlot(ref(slot), null);

  const sources = to > from ? range(0, from) : range(to, from);
  for (const [done, slot] of sources.entries()) {
    for (let bucket = 0; bucket < DATA_BUCKETS; bucket++) {
      await layout.markSlot(ref(slot), { slots: to, movingBucket: bucket });
      report.moved += await drainBucket(layout, topic, slot, bucket, to);
    }
    await layout.markSlot(ref(slot), { slots: to });
    report.sourceSlots = done + 1;
    options.onProgress?.({ topic, slot, done: done + 1, total: sources.length, moved: report.moved });
  }
  await layout.finishMigration(topic, from, to);
  // The slots a shrink gave up are empty now: their pause would outlive the topic's resume.
  if (to < from) for (let slot = to; slot < from; slot++) await store.reads.resume(ref(slot), false);
  return { ...report, tookMs: performance.now() - started };
}

/**
 * Gives slots `from..to-1` of `topic` the pause of its slots `0..from-1`: paused since the earliest
 * of their pause times when any of them is paused, not paused otherwise. Not paused, a slot loses
 * only the mark it held before the move was recorded (`leftover`, by slot from `from`): a pause
 * called after the old slots were read here has marked the new ones too, and that mark stays.
 */
async function carryPause(store: TimeoutStore, topic: string, from: number, to: number, leftover: readonly (number | null)[]): Promise<void> {
  const states = await Promise.all(range(0, from).map((slot) => store.reads.pauseState({ topic, slot })));
  const times = states.flatMap((state) => (state.pausedAt === null ? [] : [state.pausedAt]));
  const since = times.length === 0 ? null : Math.min(...times);
  for (const slot of range(from, to)) {
    const ref = { topic, slot };
    if (since === null) {
      const stale = leftover[slot - from] ?? null;
      if (stale !== null && (await store.reads.pauseState(ref)).pausedAt === stale) await store.reads.resume(ref, false);
      continue;
    }
    // A mark left on the slot from before (it holds nothing yet) would keep its own time: the
    // slot takes the topic's, so a shifting resume moves its timeouts as far as the others'.
    if ((await store.reads.pauseState(ref)).pausedAt !== since) await store.reads.resume(ref, false);
    await store.reads.pause(ref, since);
  }
}

/** Moves every entry of one data bucket of a source slot whose slot of `to` is another one; passes until one finds none. */
async function drainBucket(layout: LayoutMigration, topic: string, slot: number, bucket: number, to: number): Promise<number> {
  let moved = 0;
  for (;;) {
    const leaving = (await layout.bucketIds({ topic, slot }, bucket)).filter((id) => slotOf(id, to) !== slot);
    let exported = 0;
    for (let start = 0; start < leaving.length; start += MOVE_BATCH) {
      const round = await moveEntries(layout, topic, slot, leaving.slice(start, start + MOVE_BATCH), to);
      exported += round.exported;
      moved += round.moved;
    }
    // Done once a pass finds nothing left to move (data of an id in no state is never exported).
    // An entry that changed while it was copied (its delivery failed or was released) goes next pass.
    if (exported === 0) return moved;
  }
}

/**
 * Copies entries to their new slots, removes the originals that did not change meanwhile, takes
 * back the other copies. Returns how many entries were found and how many moved.
 */
async function moveEntries(layout: LayoutMigration, topic: string, slot: number, ids: readonly string[], to: number): Promise<{ exported: number; moved: number }> {
  const { counter, entries } = await layout.exportEntries({ topic, slot }, ids);
  const byTarget = new Map<number, MovedEntry[]>();
  for (const entry of entries) {
    const target = slotOf(entry.id, to);
    const group = byTarget.get(target);
    if (group) group.push(entry);
    else byTarget.set(target, [entry]);
  }
  const imported = new Set<MovedEntry>();
  await Promise.all(
    [...byTarget].map(async ([target, group]) => {
      const written = await layout.importEntries({ topic, slot: target }, group, counter);
      group.forEach((entry, i) => {
        if (written[i]) imported.add(entry);
      });
    }),
  );
  // An entry whose id was already in its new slot (scheduled there since) is dropped all the same:
  // what is there is newer.
  const dropped = await layout.dropEntries(
    { topic, slot },
    entries.map((entry) => ({ ...entry, target: slotOf(entry.id, to) })),
  );
  const takeBack = new Map<number, MovedEntry[]>();
  entries.forEach((entry, i) => {
    if (dropped[i] || !imported.has(entry)) return;
    const target = slotOf(entry.id, to);
    takeBack.set(target, [...(takeBack.get(target) ?? []), entry]);
  });
  for (const [target, group] of takeBack) await layout.unimportEntries({ topic, slot: target }, group);
  return { exported: entries.length, moved: dropped.filter(Boolean).length };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
