import type { CancelResult, ScheduleOutcome, TimeoutState } from '../types.js';

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

  /** Upserts a timeout: the last call wins for due time and payload. See `ScheduleOutcome`. */
  schedule(slot: SlotRef, id: string, entry: StoreScheduleEntry): Promise<{ outcome: ScheduleOutcome; dueAt: number }>;

  /** Removes a pending timeout; `firing` (unchanged) when claimed, `not_found` otherwise. */
  cancel(slot: SlotRef, id: string): Promise<CancelResult>;

  /** Reads one timeout in any state, or null. */
  get(slot: SlotRef, id: string): Promise<StoredTimeout | null>;

  /**
   * Atomically: returns expired leases to due, then moves up to `limit` due ids (due time <= now)
   * into the lease set until `now + leaseMs`, bumping each one's attempt and giving it a new
   * fencing token greater than every earlier token of that id. Returns them with their payloads,
   * the store clock `now`, the earliest due time left in the slot (or null when none is pending) and
   * the earliest lease expiry left in the slot (or null when nothing is firing).
   */
  claim(slot: SlotRef, limit: number, leaseMs: number): Promise<ClaimResult>;

  /** Removes a fired timeout, only if `fencingToken` is still its current token. False when stale. */
  ack(slot: SlotRef, id: string, fencingToken: number): Promise<boolean>;

  /** Acks many fired timeouts of one slot at once; returns one boolean per entry, in order. */
  ackMany(slot: SlotRef, entries: readonly AckEntry[]): Promise<boolean[]>;

  /**
   * A handler failed. When the token is current: retry after `retryDelayMs` (from the store clock),
   * or, when the attempt count has reached `maxAttempts`, move to the dead letters with `error`.
   */
  fail(slot: SlotRef, id: string, fencingToken: number, failure: StoreFailure): Promise<FailOutcome>;

  /** Hands claimed timeouts back as due now without spending an attempt (shutdown). Returns how many were released. */
  release(slot: SlotRef, entries: readonly AckEntry[]): Promise<number>;

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
   * subscription was re-established (wake-ups may have been missed meanwhile). Best effort: the
   * engine's sweep covers lost notifications.
   */
  subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
  ): Promise<() => Promise<void>>;

  /** Round trip to the store in ms; rejects when it does not answer. */
  ping(): Promise<number>;

  /** Closes what the store opened (never a connection it was given). */
  close(): Promise<void>;
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
}

/** What `schedule` stores. Exactly one of `delayMs` (from the store clock) and `at` is set. */
export interface StoreScheduleEntry {
  delayMs?: number;
  at?: number;
  /** JSON text of the payload (`null` when there is none). */
  payload: string;
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

/** Result of `claim`. */
export interface ClaimResult {
  claimed: ClaimedTimeout[];
  /** Store clock when the claim ran. */
  now: number;
  /** Earliest due time still pending in the slot (may be <= now when more than `limit` were due), or null. */
  nextDueAt: number | null;
  /** How many expired leases went back to due in this claim. */
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

/** A handler failure to record. */
export interface StoreFailure {
  /** Error text kept with a retried or dead timeout (the engine truncates it). */
  error: string;
  retryDelayMs: number;
  maxAttempts: number;
}

/** What `fail` did. */
export type FailOutcome = { outcome: 'retried'; retryAt: number } | { outcome: 'dead'; deadAt: number } | { outcome: 'stale' };

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
