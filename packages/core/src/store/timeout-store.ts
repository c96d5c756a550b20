import type {
  AckEntry,
  AckResult,
  CancelResult,
  ClaimResult,
  CopiedEntry,
  ExportedEntries,
  FailOutcome,
  LatePolicy,
  SlotRateLimit,
  LeaseExpiryPolicy,
  LeaseRenewal,
  MovedEntry,
  NextOccurrence,
  PauseState,
  ReleaseResult,
  ResumeResult,
  RenewResult,
  ScheduleOutcome,
  SlotMarker,
  SlotRef,
  SlotStats,
  StoredDeadLetter,
  StoredPendingEntry,
  StoredFiringEntry,
  StoredTimeout,
  StoreFailure,
  StoreScheduleEntry,
  StoreScheduleItem,
  StoreScheduleOutcome,
  StoreTopic,
  TopicLayout,
} from './store-types.js';

export type * from './store-types.js';

/** Most timeouts one `claim` takes, whatever the caller asks (keeps each call short); every store honours it. */
export const MAX_CLAIM = 1_000;

/** Most expired leases one `claim` deals with (retried or dead-lettered); the next claim takes the rest. */
export const RECOVER_PER_CLAIM = 1_000;

/** Scheduling writes by id (`DurableTimeouts.schedule`, `cancel` and their bulk forms). */
export interface ScheduleWrites {
  /**
   * Upserts a timeout. With `entry.ifExists` omitted or `replace` the last call wins for due time
   * and payload; `keep`, `earlier` and `later` may leave an existing pending or firing timeout as
   * it is (`kept`, `kept_firing`, with the due time it keeps). See `ScheduleOutcome`.
   */
  schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }>;

  /**
   * Schedules many timeouts of one slot in one atomic step, each as `schedule` would, in order (an
   * id given twice: the later item sees the earlier one). In Redis it is one script call, sent in
   * order with the slot's other schedules of the tick. One result per item: its outcome, or the
   * `SlotMovedError` / `SlotLockedError` that refused that item alone (a slot migration: route it
   * again). Rejects, with nothing of the slot stored, when the store cannot be reached.
   */
  scheduleMany(slot: SlotRef, items: readonly StoreScheduleItem[]): Promise<(StoreScheduleOutcome | Error)[]>;

  /**
   * Removes a pending timeout (`cancelled`) or a firing one (`firing`: its running delivery's ack,
   * failure record, renewal and release are refused from then on, and the subscribers of the
   * topic hear `onCancel` with its fencing token); `not_found` otherwise (dead letters included).
   */
  cancel(slot: SlotRef, id: string): Promise<CancelResult>;

  /**
   * Cancels many timeouts of one slot in one atomic step, each as `cancel` would. One result per
   * id, in order, or the `SlotMovedError` / `SlotLockedError` that refused that id alone.
   */
  cancelMany(slot: SlotRef, ids: readonly string[]): Promise<(CancelResult | Error)[]>;
}

/** The calls a worker makes for the timeouts it fires: claim, then ack, renew, fail or release, each checked against its fencing token. */
export interface Deliveries {
  /**
   * True when the calls of different slots made in the same turn of the event loop share one round
   * trip (the Redis store on one server or Sentinel; not on a Cluster, not the memory store). The
   * engine then sends a slot's finished acks with that slot's claim, where they cost no call of
   * their own, instead of after their linger. Absent means false.
   */
  readonly coalescesSlotCalls?: boolean;

  /**
   * Atomically: deals with expired leases (each counts as a failed attempt: retried after the
   * backoff of `expiry`, or dead-lettered once it has had `expiry.maxAttempts`), then moves up to
   * `limit` due ids (due time <= now) into the lease set until `now + leaseMs`, bumping each one's
   * attempt and giving it a new fencing token greater than every earlier token of that id. A due
   * or leased id whose stored data is unreadable or missing is dead-lettered, never claimed, and
   * never stops the claim. Returns the claimed timeouts with their payloads, what happened to the
   * others (`incidents`), the store clock `now`, the earliest due time left in the slot (or null
   * when none is pending) and the earliest lease expiry left in the slot (or null when nothing is firing).
   * With a `late` policy whose action is not `fire`, a due id more than `late.afterMs` past its due
   * time is dead-lettered (`LATE_ERROR`) or dropped in the same atomic step instead of claimed
   * (incidents `late_dead`, `late_skipped`); it counts towards `limit`. With a `rate`, the slot's
   * token bucket (kept in the store, on its clock) bounds how many it claims; while due timeouts
   * wait for a token, `nextDueAt` is when the next one comes.
   */
  claim(slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy, late?: LatePolicy, rate?: SlotRateLimit): Promise<ClaimResult>;

  /** Removes a fired timeout, only if `fencingToken` is still its current token. */
  ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult>;

  /**
   * Acks a fired occurrence of a recurring schedule and writes its next occurrence under the same
   * id in one atomic step (pending at `next.dueAt`, payload `next.payload`, attempts reset), only
   * if `fencingToken` is still its current token: a stale worker changes nothing.
   */
  ackNext(slot: SlotRef, id: string, fencingToken: number, next: NextOccurrence): Promise<AckResult>;

  /** Acks many fired timeouts of one slot at once; returns one result per entry, in order. */
  ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]>;

  /**
   * Renews the leases of running deliveries of one slot (handlers that run long): each whose
   * fencing token is still its id's current lease gets the lease raised to at least store now +
   * its `leaseMs` (never lowered). One result per entry, in order: the lease expiry now, `stale`
   * (a newer delivery or schedule owns the id, or it is gone), or `{ forwardedTo }` (a slot
   * migration moved the delivery: renew it there).
   */
  renewLeases(slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]>;

  /**
   * A handler failed. When the token is current: retry after `retryDelayMs` (from the store clock),
   * or, when the attempt count has reached `maxAttempts`, move to the dead letters with `error`.
   */
  fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome>;

  /**
   * Hands claimed timeouts back as due now without spending an attempt (shutdown). Returns how
   * many were released, and the ids a slot migration moved to their new slot (release them there).
   */
  release(slot: SlotRef, entries: readonly AckEntry[]): Promise<ReleaseResult>;
}

/** Reads of stored timeouts and the dead-letter operations (`get`, counts, listings, replay, purge). */
export interface StoreReads {
  /** Reads one timeout in any state, or null. */
  get(slot: SlotRef, id: string): Promise<StoredTimeout | null>;

  /**
   * Counts of one slot, the due time of its oldest overdue pending timeout (null when none is
   * overdue) and when it was paused (null when it is not): one call, the metrics' gauges read it.
   */
  stats(slot: SlotRef): Promise<SlotStats>;

  /**
   * Pending timeouts of one slot, earliest due first (ties in id byte order), from `offset`, at
   * most `limit`: ids and due times only, for listings that merge the slots of a topic.
   */
  listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]>;

  /** Lists the firing (leased) timeouts of one slot, earliest lease expiry first (ties in id byte order), without their data. */
  listFiring(slot: SlotRef, offset: number, limit: number): Promise<StoredFiringEntry[]>;

  /** Dead letters of one slot, oldest first. */
  listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]>;

  /** Moves dead letters back to due now with attempts reset (all of the slot when `ids` is omitted). Returns how many. */
  replayDead(slot: SlotRef, ids?: readonly string[]): Promise<number>;

  /** Deletes dead letters (all of the slot when `ids` is omitted). Returns how many. */
  purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number>;

  /**
   * Pauses one slot: from now on its claims change nothing and claim nothing (`ClaimResult.paused`)
   * until `resume`; schedules, cancels and every other call go on. Kept in the store, so it holds
   * for every instance and across restarts. Pausing a paused slot keeps its first pause time.
   * `since` (store clock, default now; a later time counts as now) dates the pause back: a slot
   * migration gives the slots a paused topic gains the pause time of its other slots.
   */
  pause(slot: SlotRef, since?: number): Promise<PauseState>;

  /** Whether one slot is paused, and since when. */
  pauseState(slot: SlotRef): Promise<PauseState>;

  /**
   * Ends the pause of one slot and wakes its pollers (every instance's). With `shift`, every
   * pending due time of the slot moves later by the length of its pause (scheduledAt unchanged);
   * without, what fell due meanwhile is claimed at once. A slot that is not paused is left as it is.
   */
  resume(slot: SlotRef, shift: boolean): Promise<ResumeResult>;
}

/** Where a topic's timeouts live: its recorded slot count, and the calls of a change of it (`migrateSlots`). */
export interface LayoutMigration {
  /** The slot count recorded for `topic`, or null when the topic was never used. */
  readLayout(topic: string): Promise<TopicLayout | null>;

  /** Records `slots` for `topic` when nothing is recorded yet; returns what is recorded. */
  claimLayout(topic: string, slots: number): Promise<TopicLayout>;

  /** Records that `topic` moves from `from` to `to` slots (also when it already does); returns what is recorded after. */
  beginMigration(topic: string, from: number, to: number): Promise<TopicLayout>;

  /** Records that `topic` finished moving from `from` to `to` slots (also when it already did); returns what is recorded after. */
  finishMigration(topic: string, from: number, to: number): Promise<TopicLayout>;

  /** Sets (or, with null, clears) the layout marker of a slot, and tells the topic's instances. */
  markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void>;

  /** The ids stored in one data bucket of a slot (`bucketOf(id)`), for a slot migration. */
  bucketIds(slot: SlotRef, bucket: number): Promise<string[]>;

  /** The entries of `ids` as stored (ids in no state are left out), and the slot's fencing counter. */
  exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries>;

  /**
   * Writes moved entries into their new slot, each unless its id is already there (what is there
   * is newer), and raises the slot's fencing counter to at least `counter`. One boolean per entry.
   */
  importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]>;

  /**
   * Removes moved entries from their old slot, each only if still exactly as exported; a firing
   * one leaves a forward so its ack, fail or release reports `forwarded`. One boolean per entry.
   */
  dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]>;

  /** Takes back imported entries (those whose drop failed), each only if still exactly as written. Returns how many. */
  unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number>;
}

/**
 * The storage port of the engine, as the roles its callers use: `writes` (scheduling), `deliveries`
 * (the workers), `reads` (reads and dead letters), `layout` (slot counts and their migration), and
 * the store's own life (init, clock, wake-up subscription, ping, close) on the store itself.
 * `RedisTimeoutStore` is the real one; `MemoryTimeoutStore` (with a manual clock) is for users'
 * unit tests. Both pass the same contract suites, one a role.
 *
 * Every call of a role works on one slot of one topic (an id always lives in one slot), so in
 * Redis each call is one script on one hash tag. Times are milliseconds since the epoch on the
 * store's clock (the Redis server clock for Redis), never the caller's `Date.now()`.
 *
 * Payloads cross this port as JSON text; the engine serialises, validates and parses them.
 */
export interface TimeoutStore {
  /** Scheduling writes by id: the engine's `schedule`, `cancel` and their bulk forms. */
  readonly writes: ScheduleWrites;
  /** The workers' calls: claim, ack, renew, fail, release. */
  readonly deliveries: Deliveries;
  /** Reads and the dead-letter operations. */
  readonly reads: StoreReads;
  /** Each topic's recorded slot count, and the calls of a change of it. */
  readonly layout: LayoutMigration;

  /** Prepares the store for these topics (load scripts, check the server). Called once by `start` or the first command. */
  init(topics: readonly StoreTopic[]): Promise<void>;

  /** The store clock now. */
  now(): Promise<number>;

  /**
   * Subscribes to wake-ups: `onWake(slot, dueAt)` is called when a schedule lands ahead of a slot's
   * earliest due time (possibly from another process). `onResubscribed` is called after the
   * subscription was re-established (wake-ups may have been missed meanwhile). `onLayout(topic)`
   * is called when a slot migration changed a slot of the topic (`markSlot`). `onCancel(topic, id,
   * fencingToken)` is called when a `cancel` or `cancelMany` (possibly from another process)
   * removed a firing timeout: the delivery holding `fencingToken` should stop. Best effort: the
   * engine's sweep covers lost wake-ups, and a delivery whose cancel notice was lost finds its ack
   * or failure record refused.
   */
  subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
    onLayout?: (topic: string) => void,
    onCancel?: (topic: string, id: string, fencingToken: number) => void,
  ): Promise<() => Promise<void>>;

  /** Round trip to the store in ms; rejects when it does not answer. */
  ping(): Promise<number>;

  /** Closes what the store opened (never a connection it was given). */
  close(): Promise<void>;
}
