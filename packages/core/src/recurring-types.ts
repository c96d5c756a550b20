import type { JsonValue, TimeoutState } from './types.js';
import type { CatchUpPolicy } from './validation/recurrence.js';

export type { CatchUpPolicy };

/**
 * A recurring schedule (`timeouts.schedules.upsert`): when it fires, exactly one of `cron` and
 * `everyMs`, what to do with occurrences missed while no instance ran, and the payload every
 * occurrence carries.
 */
export interface RecurringScheduleOptions<TPayload extends JsonValue = JsonValue> {
  /**
   * A cron expression: five fields (minute hour day-of-month month day-of-week), or six with
   * seconds first, e.g. `'0 2 * * *'` (02:00 every day). Read in `timeZone`.
   */
  cron?: string | undefined;
  /** An interval in ms (1,000 or more): occurrences at every whole multiple of it since the Unix epoch. */
  everyMs?: number | undefined;
  /** IANA time zone of `cron` (e.g. `'Europe/Berlin'`). Default UTC. Not for `everyMs`. */
  timeZone?: string | undefined;
  /**
   * Occurrences that passed while no instance fired them: `'skip'` drops them and waits for the next
   * future one, `'once'` (default) fires once for all of them, `'all'` fires each of them, in order.
   */
  catchUp?: CatchUpPolicy | undefined;
  /** JSON payload every occurrence carries (`ScheduleOccurrence.payload`). */
  payload?: TPayload | undefined;
}

/** What `schedules.upsert` did: `created`, `updated` (its options changed: the next occurrence is computed anew), `unchanged`. */
export interface RecurringScheduleResult {
  name: string;
  outcome: 'created' | 'updated' | 'unchanged';
  /** Due time of the schedule's next occurrence, ms since the epoch (Redis server clock). */
  nextAt: number;
}

/** One recurring schedule as `schedules.list` reads it. */
export interface RecurringScheduleInfo {
  name: string;
  cron?: string;
  everyMs?: number;
  timeZone?: string;
  catchUp: CatchUpPolicy;
  payload: JsonValue | undefined;
  /**
   * `pending` (waits for `nextAt`), `firing` (an occurrence runs now; `nextAt` is its due time), or
   * `dead` (an occurrence used up its attempts: the chain waits for `replayDead` or an `upsert`).
   */
  state: TimeoutState;
  /** Occurrence the schedule waits for, or runs now, ms since the epoch (Redis server clock). */
  nextAt: number;
  /**
   * Whether the schedule is paused (`schedules.pause`): its occurrences pass without running its
   * handler until `schedules.resume`.
   */
  paused: boolean;
}

/** One occurrence of a recurring schedule, as its handler receives it. */
export interface ScheduleOccurrence<TPayload extends JsonValue = JsonValue> {
  /** The schedule's name. */
  name: string;
  /** The occurrence's own time (what the cron expression or interval named), ms since the epoch. Count by it: it is the same on every attempt. */
  occurrenceAt: number;
  /** Later occurrences that had passed too and that this run stands for (`catchUp: 'once'`); 0 otherwise. */
  missed: number;
  payload: TPayload | undefined;
  /** 1 on the first delivery of this occurrence, then 2, 3, ... */
  attempt: number;
  /** Grows with every delivery of the schedule (see `TimeoutEvent.fencingToken`). */
  fencingToken: number;
  /** See `TimeoutEvent.signal`. */
  signal: AbortSignal;
  /** See `TimeoutEvent.extendLease`. */
  extendLease(ms: number): Promise<number>;
}

/**
 * The handler of a recurring schedule. Returning (or resolving) acknowledges the occurrence and
 * writes the next one in the same step; throwing (or rejecting) retries the occurrence, as for a
 * timeout.
 */
export type ScheduleHandler<TPayload extends JsonValue = JsonValue> = (occurrence: ScheduleOccurrence<TPayload>) => unknown | Promise<unknown>;
