/**
 * What `schedule` did:
 * - `created`: there was no timeout with this id (or only a dead letter, now replaced);
 * - `replaced`: a pending timeout with this id got the new due time and payload;
 * - `replaced_firing`: a timeout with this id was being fired; the new one is pending, the running
 *   handler's fencing token is now stale (its ack changes nothing) and its attempt count is reset;
 * - `kept`: a pending timeout with this id stays as it was (`ifExists` said so); `dueAt` is its due time;
 * - `kept_firing`: a timeout with this id is being fired and stays as it is (`ifExists` said so);
 *   `dueAt` is the due time of the running delivery.
 */
export type ScheduleOutcome = 'created' | 'replaced' | 'replaced_firing' | 'kept' | 'kept_firing';

/**
 * What `schedule` does when a timeout with the id already exists, pending or firing (a dead letter
 * with the id is always replaced, as if there were none). The new due time is compared with the
 * due time the id has now (for a firing one: the due time of the delivery that runs):
 * - `replace` (default): the call wins: new due time and payload (debounce: every call pushes the deadline);
 * - `keep`: the existing timeout wins, whatever its due time (the first call wins: an idempotent producer retry, a throttle);
 * - `earlier`: replaced only when the new due time is earlier (the deadline only ever moves earlier);
 * - `later`: replaced only when the new due time is later (the deadline only ever moves later: an extension).
 * When the call wins it replaces due time and payload and starts afresh (attempt 0); when it does
 * not, nothing is changed (`kept` or `kept_firing`, with the due time kept).
 */
export type ScheduleIfExists = 'replace' | 'keep' | 'earlier' | 'later';

/**
 * Result of `cancel`: `cancelled` (it was pending and will never fire), `firing` (a worker holds it
 * now; nothing was changed, its handler runs to the end), `not_found` (no such timeout).
 */
export type CancelResult = 'cancelled' | 'firing' | 'not_found';

/** State of a stored timeout. */
export type TimeoutState = 'pending' | 'firing' | 'dead';

/** Most timeouts one `claim` takes, whatever the caller asks (keeps each call short); every store honours it. */
export const MAX_CLAIM = 1_000;

/** Most expired leases one `claim` deals with (retried or dead-lettered); the next claim takes the rest. */
export const RECOVER_PER_CLAIM = 1_000;

/** A topic's retry backoff with every field set (see the topic option `backoff`). */
export interface RetryBackoff {
  /** Delay before the first retry, before jitter, ms. */
  baseMs: number;
  /** Largest delay between two attempts, ms. */
  capMs: number;
}

/**
 * The storage port of the engine. `RedisTimeoutStore` is the real one; `MemoryTimeoutStore` (with a
 * manual clock) is for users' unit tests. Both pass the same contract suite.
 *
 * Every method works on one slot of one topic (an id always lives in one slot), so in Redis each
 * call is one script on one hash tag. Times are milliseconds since the epoch on the store's clock
 * (the Redis server clock for Redis), never the caller's `Date.now()`.
 *
 * Payloads cross this port as JSON text; the engine serialises, validates and parses them.
 */
export interface TimeoutStore {
  /** Prepares the store for these topics (load scripts, check the server). Called once by `start` or the first command. */
  init(topics: readonly StoreTopic[]): Promise<void>;

  /** The store clock now. */
  now(): Promise<number>;

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

  /** Removes a pending timeout; `firing` (unchanged) when claimed, `not_found` otherwise. */
  cancel(slot: SlotRef, id: string): Promise<CancelResult>;

  /**
   * Cancels many timeouts of one slot in one atomic step, each as `cancel` would. One result per
   * id, in order, or the `SlotMovedError` / `SlotLockedError` that refused that id alone.
   */
  cancelMany(slot: SlotRef, ids: readonly string[]): Promise<(CancelResult | Error)[]>;

  /** Reads one timeout in any state, or null. */
  get(slot: SlotRef, id: string): Promise<StoredTimeout | null>;

  /**
   * Atomically: deals with expired leases (each counts as a failed attempt: retried after the
   * backoff of `expiry`, or dead-lettered once it has had `expiry.maxAttempts`), then moves up to
   * `limit` due ids (due time <= now) into the lease set until `now + leaseMs`, bumping each one's
   * attempt and giving it a new fencing token greater than every earlier token of that id. A due
   * or leased id whose stored data is unreadable or missing is dead-lettered, never claimed, and
   * never stops the claim. Returns the claimed timeouts with their payloads, what happened to the
   * others (`incidents`), the store clock `now`, the earliest due time left in the slot (or null
   * when none is pending) and the earliest lease expiry left in the slot (or null when nothing is firing).
   */
  claim(slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy): Promise<ClaimResult>;

  /** Removes a fired timeout, only if `fencingToken` is still its current token. */
  ack(slot: SlotRef, id: string, fencingToken: number): Promise<AckResult>;

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

  /** Counts of one slot and the due time of its oldest overdue pending timeout (null when none is overdue). */
  stats(slot: SlotRef): Promise<SlotStats>;

  /** Dead letters of one slot, oldest first. */
  listDead(slot: SlotRef, offset: number, limit: number): Promise<StoredDeadLetter[]>;
  /** Moves dead letters back to due now with attempts reset (all of the slot when `ids` is omitted). Returns how many. */
  replayDead(slot: SlotRef, ids?: readonly string[]): Promise<number>;
  /** Deletes dead letters (all of the slot when `ids` is omitted). Returns how many. */
  purgeDead(slot: SlotRef, ids?: readonly string[]): Promise<number>;

  /**
   * Subscribes to wake-ups: `onWake(slot, dueAt)` is called when a schedule lands ahead of a slot's
   * earliest due time (possibly from another process). `onResubscribed` is called after the
   * subscription was re-established (wake-ups may have been missed meanwhile). `onLayout(topic)`
   * is called when a slot migration changed a slot of the topic (`markSlot`). Best effort: the
   * engine's sweep covers lost notifications.
   */
  subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
    onLayout?: (topic: string) => void,
  ): Promise<() => Promise<void>>;

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

  /** Round trip to the store in ms; rejects when it does not answer. */
  ping(): Promise<number>;

  /** Closes what the store opened (never a connection it was given). */
  close(): Promise<void>;

  /**
   * Pending timeouts of one slot, earliest due first (ties in id byte order), from `offset`, at
   * most `limit`: ids and due times only, for listings that merge the slots of a topic.
   */
  listPending(slot: SlotRef, offset: number, limit: number): Promise<StoredPendingEntry[]>;
}

/** A topic as the store sees it. */
export interface StoreTopic {
  name: string;
  slots: number;
}

/** One slot of one topic. */
export interface SlotRef {
  topic: string;
  slot: number;
  /**
   * The slot count the caller routed the id by (`slot = slotOf(id, slots)`). Calls on one id
   * (`schedule`, `cancel`, `get`, `replayDead`, `purgeDead`) are refused with `SlotMovedError` when
   * a change of the topic's slot count moved the slot to another count. Omitted: not checked.
   */
  slots?: number;
}

/** A topic's slot count as the store records it: steady, or being migrated to `migratingTo`. */
export interface TopicLayout {
  slots: number;
  migratingTo?: number;
}

/** What a change of slot count does to one slot (see `markSlot`). */
export interface SlotMarker {
  /** The slot count the slot is being moved to, or was moved to. */
  slots: number;
  /**
   * While the slot is being moved: the data bucket being moved now. Calls on its ids wait
   * (`SlotLockedError`) and claims skip them; ids of the buckets before it were moved (a call
   * routed by another slot count gets `SlotMovedError`); ids of the buckets after it stay put.
   * Omitted: the whole slot was moved.
   */
  movingBucket?: number;
}

/** One stored timeout as a slot migration moves it: opaque to anything but the store that wrote it. */
export interface MovedEntry {
  id: string;
  state: TimeoutState;
  /** Its score in the set of its state (due time, lease expiry, time of death). */
  score: number;
  /** The stored value, as the store keeps it. */
  value: string;
}

/** What `exportEntries` read: the entries, and the slot's fencing counter. */
export interface ExportedEntries {
  counter: number;
  entries: MovedEntry[];
}

/**
 * What an ack did: removed the timeout (`acked`), changed nothing (`stale` token), or found that a
 * slot migration moved the delivery to slot `forwardedTo` of the topic (ack it there).
 */
export type AckResult = 'acked' | 'stale' | { forwardedTo: number };

/** A moved entry and the slot it was copied to, for `dropEntries`. */
export interface CopiedEntry extends MovedEntry {
  /** The slot the entry was copied to: a forward of a firing entry points there. */
  target: number;
}

/** What `schedule` stores. Exactly one of `delayMs` (from the store clock) and `at` is set. */
export interface StoreScheduleEntry {
  delayMs?: number;
  at?: number;
  /** What to do when the id already exists (see `ScheduleIfExists`); omitted: `replace`. */
  ifExists?: ScheduleIfExists;
  /** JSON text of the payload (`null` when there is none). */
  payload: string;
}

/** One timeout of a `scheduleMany` call. */
export interface StoreScheduleItem {
  id: string;
  entry: StoreScheduleEntry;
}

/** What the store did with one scheduled timeout. */
export interface StoreScheduleOutcome {
  outcome: ScheduleOutcome;
  dueAt: number;
}

/** A stored timeout as read back. */
export interface StoredTimeout {
  id: string;
  state: TimeoutState;
  dueAt: number;
  scheduledAt: number;
  attempt: number;
  fencingToken: number;
  leaseExpiresAt?: number;
  lastError?: string;
  /** JSON text. */
  payload: string;
}

/** One claimed timeout. */
export interface ClaimedTimeout {
  id: string;
  dueAt: number;
  scheduledAt: number;
  /** 1-based attempt of this delivery. */
  attempt: number;
  fencingToken: number;
  /** JSON text. */
  payload: string;
}

/** What a claim does with a timeout whose lease expired: the topic's retry policy. */
export interface LeaseExpiryPolicy {
  /** An expired lease whose timeout has had this many attempts sends it to the dead letters. */
  maxAttempts: number;
  /** Backoff before the retry of an expired lease (exponential with equal jitter). */
  backoff: RetryBackoff;
}

/**
 * What a claim did to a timeout other than claiming it:
 * - `lease_retried`: its lease expired (its worker died or its handler outran `leaseMs`); it counts
 *   as a failed attempt and runs again at `at`;
 * - `lease_dead`: the same, on its last attempt: moved to the dead letters at `at`;
 * - `corrupt`: its stored data could not be read (written by another tool or version, or damaged):
 *   moved to the dead letters with the raw text as its payload;
 * - `missing`: its id was due or leased but its data was gone: moved to the dead letters.
 */
export interface ClaimIncident {
  id: string;
  kind: 'lease_retried' | 'lease_dead' | 'corrupt' | 'missing';
  /** Attempts made so far (0 when unknown: corrupt or missing). */
  attempts: number;
  /** Retry time (`lease_retried`) or time of death, store clock. */
  at: number;
  /** The error stored with the timeout. */
  error: string;
}

/** Result of `claim`. */
export interface ClaimResult {
  claimed: ClaimedTimeout[];
  /** Timeouts the claim retried or dead-lettered instead of claiming (see `ClaimIncident`). */
  incidents: ClaimIncident[];
  /** Store clock when the claim ran. */
  now: number;
  /** Earliest due time still pending in the slot (may be <= now when more than `limit` were due), or null. */
  nextDueAt: number | null;
  /** How many expired leases this claim dealt with (retried or dead-lettered). */
  recovered: number;
  /**
   * Earliest lease expiry left in the slot (the leases this claim just made included), or null when
   * nothing is firing. A poller sleeps no longer than this, so the timeouts of a worker that died
   * are returned to due and fired when its lease ends, not at the next sweep. May be <= now when
   * more expired leases were left than one claim recovers.
   */
  nextLeaseExpiresAt: number | null;
}

/** Identifies one delivery for ack / release. */
export interface AckEntry {
  id: string;
  fencingToken: number;
}

/** One lease to renew: the delivery (`id`, `fencingToken`) and how long from now it should last at least. */
export interface LeaseRenewal extends AckEntry {
  leaseMs: number;
}

/** What a renewal did: the lease expiry now (store clock), `stale`, or the slot a migration moved the delivery to. */
export type RenewResult = { leaseExpiresAt: number } | 'stale' | { forwardedTo: number };

/** A handler failure to record. */
export interface StoreFailure {
  /** Error text kept with a retried or dead timeout (the engine truncates it). */
  error: string;
  retryDelayMs: number;
  maxAttempts: number;
}

/** What `fail` did (`forwarded`: a slot migration moved the delivery to `slot`; record the failure there). */
export type FailOutcome =
  | { outcome: 'retried'; retryAt: number }
  | { outcome: 'dead'; deadAt: number }
  | { outcome: 'stale' }
  | { outcome: 'forwarded'; slot: number };

/** What `release` did. */
export interface ReleaseResult {
  released: number;
  /** Deliveries a slot migration moved to another slot of the topic: release them there. */
  forwarded: { id: string; slot: number }[];
}

/** Counts of one slot. */
export interface SlotStats {
  pending: number;
  firing: number;
  dead: number;
  /** Due time of the oldest pending timeout that is overdue, or null. */
  oldestOverdueDueAt: number | null;
  now: number;
}

/** A dead letter as stored. */
export interface StoredDeadLetter {
  id: string;
  attempts: number;
  lastError: string;
  deadAt: number;
  scheduledAt: number;
  /** JSON text. */
  payload: string;
}

/** A pending timeout as `listPending` lists it. */
export interface StoredPendingEntry {
  id: string;
  dueAt: number;
}
