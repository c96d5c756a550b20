/**
 * The values that cross the storage port (`TimeoutStore`, store/timeout-store.ts): what the engine
 * hands a store, and what each call answers. Plain data, the same for every store.
 */

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
 * Result of `cancel`: `cancelled` (it was pending and will never fire), `firing` (a worker held it:
 * it is removed all the same and will not run again; the running handler's `event.signal` is
 * aborted with `TimeoutCancelledError`, but what it already did stays done), `not_found` (no such
 * timeout).
 */
export type CancelResult = 'cancelled' | 'firing' | 'not_found';

/** State of a stored timeout. */
export type TimeoutState = 'pending' | 'firing' | 'dead';

/** A topic's retry backoff with every field set (see the topic option `backoff`). */
export interface RetryBackoff {
  /** Delay before the first retry, before jitter, ms. */
  baseMs: number;
  /** Largest delay between two attempts, ms. */
  capMs: number;
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
 * What a claim does with a due timeout claimed more than `afterMs` past its due time (store
 * clock): dead-letters it (`dead-letter`, error `LATE_ERROR`) or drops it (`skip`) instead of
 * claiming it. `fire` claims it like any other (as does no policy at all).
 */
export interface LatePolicy {
  afterMs: number;
  action: LateAction;
}

/**
 * A token bucket for the claims of one slot: it refills at `perMs` tokens per ms of the store clock
 * up to `burst`; a claim takes at most as many due timeouts as there are whole tokens and spends
 * one per timeout it claims.
 */
export interface SlotRateLimit {
  perMs: number;
  burst: number;
}

/** What the `late` topic option does with a late timeout (see `LatePolicy`). */
export type LateAction = 'fire' | 'dead-letter' | 'skip';

/**
 * What a claim did to a timeout other than claiming it:
 * - `lease_retried`: its lease expired (its worker died or its handler outran `leaseMs`); it counts
 *   as a failed attempt and runs again at `at`;
 * - `lease_dead`: the same, on its last attempt: moved to the dead letters at `at`;
 * - `corrupt`: its stored data could not be read (written by another tool or version, or damaged):
 *   moved to the dead letters with the raw text as its payload;
 * - `missing`: its id was due or leased but its data was gone: moved to the dead letters;
 * - `late_dead`: it was due more than the late policy's `afterMs` ago: moved to the dead letters;
 * - `late_skipped`: the same, with the `skip` action: dropped (gone, as if cancelled).
 */
export interface ClaimIncident {
  id: string;
  kind: 'lease_retried' | 'lease_dead' | 'corrupt' | 'missing' | 'late_dead' | 'late_skipped';
  /** Attempts made so far (0 when unknown: corrupt or missing). */
  attempts: number;
  /** Retry time (`lease_retried`) or time of death, store clock. */
  at: number;
  /** The error stored with the timeout ('' for `late_skipped`). */
  error: string;
  /** The due time it was late for (`late_dead`, `late_skipped` only). */
  dueAt?: number;
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
  /**
   * True when the slot is paused (`StoreReads.pause`): the claim changed nothing, claimed nothing,
   * and reports no due time or lease expiry (a poller sleeps until a wake-up or its sweep).
   */
  paused?: boolean;
}

/** Whether a slot is paused: the store clock now, and when the slot was paused (null: it is not). */
export interface PauseState {
  now: number;
  pausedAt: number | null;
}

/** What `resume` did to a slot. */
export interface ResumeResult {
  /** Store clock when it ran. */
  now: number;
  /** When the slot had been paused; null when it was not paused (nothing changed). */
  pausedAt: number | null;
  /** How many pending due times moved later (`shift` only). */
  shifted: number;
}

/** The next occurrence of a recurring schedule, written by `ackNext`. */
export interface NextOccurrence {
  /** Due time, ms since the epoch on the store clock. */
  dueAt: number;
  /** JSON text of its payload. */
  payload: string;
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
  /** When the slot was paused (`StoreReads.pause`), or null when it is not paused. */
  pausedAt: number | null;
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

/** One firing timeout of a slot's listing (`listFiring`), without its data. */
export interface StoredFiringEntry {
  id: string;
  leaseExpiresAt: number;
}
