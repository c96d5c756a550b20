import { TopicMigratingError } from '../errors/topic-migrating.error.js';
import { TopicSlotsMismatchError } from '../errors/topic-slots-mismatch.error.js';
import { SlotLockedError } from '../store/slot-locked.error.js';
import { SlotMovedError } from '../store/slot-moved.error.js';
import { slotOf } from '../store/slot-of.js';
import type { LayoutMigration, SlotRef, TopicLayout } from '../store/timeout-store.js';

/** Most times one call follows a slot that moved before it gives up (a migration runs at most one move at a time). */
const MAX_HOPS = 4;
const RECORDED: Promise<void> = Promise.resolve();

/** Pause before calling a slot that a migration has locked again (jittered up to twice this). */
const LOCKED_RETRY_MS = 10;

/**
 * Where the timeouts of each topic live: the slot count the store records for it (steady, or being
 * moved to another count by `migrateSlots`), the slots this instance polls, and the slot of an id.
 *
 * The store records a topic's slot count the first time any instance uses it; an instance
 * configured with another count refuses to start (`TopicSlotsMismatchError`). While a migration
 * moves the topic from N to M slots, an id is looked for in its slot of N first: a slot the
 * migration already moved answers `SlotMovedError` and the call goes on to the id's slot of M; a slot
 * it is moving right now answers `SlotLockedError` and the call waits (within `commandTimeoutMs`).
 * Pollers cover both counts' slots until the migration ends. See docs/ENGINE.md, "Changing a
 * topic's slot count".
 */
export class TopicLayouts {
  private readonly layouts = new Map<string, TopicLayout>();
  private readonly claimRefs = new Map<string, SlotRef[]>();
  private readonly routeRefs = new Map<string, SlotRef>();
  private readonly listeners = new Set<(topic: string) => void>();
  private readonly refreshing = new Map<string, Promise<TopicLayout>>();
  /** Per topic: resolved once its slot count is recorded (see `recordLayout`). */
  private readonly recording = new Map<string, Promise<void>>();

  constructor(
    /** The layout role of the store in use (a function: the engine replaces its store after a failed start). */
    private readonly currentStore: () => LayoutMigration,
    /** Each topic's configured slot count. */
    private readonly configured: ReadonlyMap<string, number>,
    private readonly commandTimeoutMs: number,
  ) {}

  /** Reads each topic's recorded slot count and checks the configured one against it (a topic never used has none yet). */
  async init(): Promise<void> {
    this.recording.clear();
    for (const [topic, slots] of this.configured) {
      const recorded = await this.currentStore().readLayout(topic);
      if (!recorded) continue;
      if (!fits(recorded, slots)) throw new TopicSlotsMismatchError(topic, slots, describe(recorded));
      this.set(topic, recorded);
      this.recording.set(topic, RECORDED);
    }
  }

  /**
   * Records the configured slot count of `topic` in the store when it has none yet (a call that
   * writes: `schedule`, starting the pollers), and resolves once a count is recorded. Every call on
   * an id awaits the same promise, so calls made in order stay in order.
   */
  recordLayout(topic: string): Promise<void> {
    let pending = this.recording.get(topic);
    if (!pending) {
      const slots = this.configured.get(topic)!;
      pending = this.currentStore()
        .claimLayout(topic, slots)
        .then((recorded) => {
          if (!fits(recorded, slots)) throw new TopicSlotsMismatchError(topic, slots, describe(recorded));
          this.set(topic, recorded);
        })
        .catch((error: unknown) => {
          this.recording.delete(topic);
          throw error;
        });
      this.recording.set(topic, pending);
    }
    return pending;
  }

  /**
   * Resolves once a recording of `topic`'s slot count under way (`recordLayout`) is done; records
   * nothing itself (a call that only reads, such as a command line's `stats`, never does).
   */
  layoutRecorded(topic: string): Promise<void> {
    return this.recording.get(topic) ?? RECORDED;
  }

  /** The layout of `topic` as last read (the configured count before `init`). */
  layout(topic: string): TopicLayout {
    return this.layouts.get(topic) ?? { slots: this.configured.get(topic)! };
  }

  /** How many slots the pollers of `topic` cover: during a migration, those of both counts. */
  polledSlots(topic: string): number {
    const { slots, migratingTo } = this.layout(topic);
    return Math.max(slots, migratingTo ?? 0);
  }

  /** The reference of one slot of `topic` for claims, acks and counts (the same object every time). */
  slotRef(topic: string, slot: number): SlotRef {
    let refs = this.claimRefs.get(topic);
    if (!refs) {
      refs = [];
      this.claimRefs.set(topic, refs);
    }
    for (let next = refs.length; next <= slot; next++) refs.push({ topic, slot: next });
    return refs[slot]!;
  }

  /** Every slot of `topic` that may hold timeouts now. */
  slotRefs(topic: string): SlotRef[] {
    const count = this.polledSlots(topic);
    this.slotRef(topic, count - 1);
    return this.claimRefs.get(topic)!.slice(0, count);
  }

  /** The slot an id is looked for in first, with the slot count it is routed by. */
  route(topic: string, id: string): SlotRef {
    return this.routeBy(topic, id, this.layout(topic).slots);
  }

  /** `items` grouped by the slot their id is routed to first (`route`), each group in the order given. */
  groupByRoute<T>(topic: string, items: Iterable<T>, idOf: (item: T) => string): Map<SlotRef, T[]> {
    const groups = new Map<SlotRef, T[]>();
    for (const item of items) {
      const ref = this.route(topic, idOf(item));
      const group = groups.get(ref);
      if (group) group.push(item);
      else groups.set(ref, [item]);
    }
    return groups;
  }

  /**
   * Runs a call on one id in the slot where the id lives now: follows a slot that moved
   * (`SlotMovedError`) and waits out one that a migration is moving (`SlotLockedError`), within
   * `commandTimeoutMs`, then fails with `TopicMigratingError`.
   */
  async callById<T>(topic: string, id: string, call: (ref: SlotRef) => Promise<T>): Promise<T> {
    let ref = this.route(topic, id);
    const started = performance.now();
    for (let hops = 0; ; ) {
      try {
        return await call(ref);
      } catch (error) {
        if (error instanceof SlotMovedError && hops < MAX_HOPS) {
          hops++;
          ref = this.routeBy(topic, id, error.slots);
          this.refreshSoon(topic);
        } else if (error instanceof SlotLockedError) {
          const waited = performance.now() - started;
          if (waited >= this.commandTimeoutMs) throw new TopicMigratingError(topic, error.slots, waited);
          this.refreshSoon(topic);
          await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS * (1 + Math.random())));
        } else {
          throw error;
        }
      }
    }
  }

  /** Runs a call on a whole slot of `topic`, waiting out a migration's lock on it as `callById` does. */
  async callOnSlot<T>(topic: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof SlotLockedError)) throw error;
        const waited = performance.now() - started;
        if (waited >= this.commandTimeoutMs) throw new TopicMigratingError(topic, error.slots, waited);
        await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS * (1 + Math.random())));
      }
    }
  }

  /**
   * Reads the layout of `topic` again; listeners hear of a change. Concurrent calls share one read,
   * unless `fresh`: then the answer comes from a read begun after this call (after the read out
   * now, so an older answer never overwrites a newer one), for a caller that must see whatever was
   * recorded before it asked (a pause that checks no migration added slots meanwhile).
   */
  refresh(topic: string, fresh = false): Promise<TopicLayout> {
    const inFlight = this.refreshing.get(topic);
    if (inFlight && !fresh) return inFlight;
    const read = (): Promise<TopicLayout> =>
      this.currentStore()
        .readLayout(topic)
        .then((layout) => {
          if (layout) this.set(topic, layout);
          return this.layout(topic);
        });
    const pending: Promise<TopicLayout> = (inFlight ? inFlight.then(read, read) : read()).finally(() => {
      if (this.refreshing.get(topic) === pending) this.refreshing.delete(topic);
    });
    this.refreshing.set(topic, pending);
    return pending;
  }

  /** `refresh` without waiting; a failed read is left to the next one. */
  refreshSoon(topic: string): void {
    this.refresh(topic).catch(() => undefined);
  }

  /** Calls `listener(topic)` whenever the layout of a topic changes. Returns a function that stops it. */
  onChange(listener: (topic: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(topic: string, layout: TopicLayout): void {
    const before = this.layouts.get(topic);
    this.layouts.set(topic, layout);
    if (before && before.slots === layout.slots && before.migratingTo === layout.migratingTo) return;
    for (const listener of this.listeners) listener(topic);
  }

  private routeBy(topic: string, id: string, slots: number): SlotRef {
    const slot = slots === 1 ? 0 : slotOf(id, slots);
    const key = `${topic}\u0000${slot}\u0000${slots}`;
    let ref = this.routeRefs.get(key);
    if (!ref) {
      ref = { topic, slot, slots };
      this.routeRefs.set(key, ref);
    }
    return ref;
  }
}

/** Whether an instance configured with `slots` may run on a topic recorded as `layout`. */
function fits(layout: TopicLayout, slots: number): boolean {
  return layout.slots === slots || layout.migratingTo === slots;
}

function describe(layout: TopicLayout): string {
  return layout.migratingTo === undefined ? String(layout.slots) : `${layout.slots}>${layout.migratingTo}`;
}
