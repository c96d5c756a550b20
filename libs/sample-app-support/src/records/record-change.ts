/** When a new record's first deadline is due: a time already fixed (a durable timeout's) or a delay from now. */
export type RecordDue = { dueAt: number } | { delayMs: number };

/** What `StatusRecords.create` stores besides the id and the times. */
export interface NewRecord<TStatus extends string> {
  /** The first status. */
  status: TStatus;
  /** Name of the field that holds the due time of the first deadline (`paymentDueAt`, `matchDueAt`). */
  dueField: string;
  due: RecordDue;
  /** More fields to store, e.g. `details` as JSON. */
  fields?: Record<string, string>;
}

/** The timeout delivery that applies a change, recorded in its transition line. */
export interface DeliveryStamp {
  fencingToken: number;
  attempt: number;
}

/**
 * A status change, applied by `StatusRecords.transition` only if all its guards hold (a
 * compare-and-set); the Lua script `TRANSITION_RECORD_LUA` documents each field.
 */
export interface RecordChange<TStatus extends string, TCause extends string> {
  /** Statuses the record may be in; any other refuses the change. */
  from: readonly TStatus[];
  to: TStatus;
  by: TCause;
  /** The timeout delivery applying it (timeout path only). */
  delivery?: DeliveryStamp;
  /** Fields that must hold exactly these values, e.g. the driver of the trip. */
  expect?: Record<string, string>;
  /** Apply only if `field` holds a due time no later than `dueAt` (a deadline that moved later refuses). */
  deadline?: { field: string; dueAt: number };
  /**
   * A hash of resources the app shares between records (member -> record id), such as drivers:
   * `take` a member (refused as `busy` when another record holds it), `release` one the record holds.
   */
  claims?: { key: string; take?: string; release?: string };
  /** Fields to write with the change. */
  set?: Record<string, string | number>;
  /** Fields to delete with the change. */
  unset?: readonly string[];
  /** More data for the transition line (never secrets: the line is returned by the API). */
  line?: Record<string, string>;
}

/** How a change ended. Only the kinds its guards allow can occur (no `claims.take`: never `busy`). */
export type TransitionOutcome<TStatus extends string> =
  /** Applied at `at` (ms, Redis server clock). */
  | { kind: 'applied'; at: number }
  /** No such record. */
  | { kind: 'not_found' }
  /** The record is in `status`, not one of `from`. */
  | { kind: 'refused'; status: TStatus }
  /** A field of `expect` holds another value. */
  | { kind: 'mismatch'; field: string }
  /** The deadline moved: its field holds `dueAt`, later than the change allowed. */
  | { kind: 'moved'; dueAt: number }
  /** The claimed resource belongs to the record `holder`. */
  | { kind: 'busy'; holder: string };

/** One line of a record's audit trail, as the API returns it: a change, applied once, never rewritten. */
export interface RecordTransition<TStatus extends string, TCause extends string> {
  from: TStatus;
  to: TStatus;
  /** ISO 8601 time of the change (Redis server clock). */
  at: string;
  by: TCause;
  /** Timeout path only: the fencing token of the delivery that applied it. */
  fencingToken?: number;
  /** Timeout path only: the delivery attempt that applied it. */
  attempt?: number;
  /** The INSTANCE_ID of the instance that applied it, when set. */
  instance?: string;
}

/** What Redis holds for a record: its hash and its transitions list (JSON lines). */
export interface StoredRecord {
  fields: Record<string, string>;
  transitions: string[];
}
