import { Cron } from 'croner';
import { InvalidScheduleError } from '../errors/invalid-schedule.error.js';
import { describeType } from './describe-type.js';
import { MAX_DELAY_MS } from './timing.js';

/** What a recurring schedule does with occurrences that passed while no instance fired them. */
export type CatchUpPolicy = 'skip' | 'once' | 'all';

/** The catch-up policies, in the order the docs give them. */
export const CATCH_UP_POLICIES: readonly CatchUpPolicy[] = ['skip', 'once', 'all'];

/** Default `catchUp` of a recurring schedule. */
export const DEFAULT_CATCH_UP: CatchUpPolicy = 'once';

/** Smallest `everyMs` of a recurring schedule: one second, the resolution of a cron expression too. */
export const MIN_EVERY_MS = 1_000;

/** How many missed occurrences `planOccurrence` counts at most (a cron schedule is walked one by one). */
export const MAX_COUNTED_MISSED = 10_000;

/** When a recurring schedule fires, validated: exactly one of `cron` (with its time zone) and `everyMs`. */
export interface Recurrence {
  cron?: string;
  everyMs?: number;
  /** IANA time zone of `cron`; absent means UTC. */
  timeZone?: string;
  catchUp: CatchUpPolicy;
}

/** What to do with one claimed occurrence (`planOccurrence`). */
export interface OccurrencePlan {
  /** Whether the handler runs for this occurrence (false: `skip` dropped it as missed). */
  run: boolean;
  /** Occurrences after this one that had passed already and will not fire on their own (0 unless it was missed under `skip` or `once`). */
  missed: number;
  /** Due time of the occurrence to write next. */
  nextAt: number;
}

/**
 * Checks the timing options of a recurring schedule and returns them resolved. Throws
 * `InvalidScheduleError` naming the schedule and the problem.
 */
export function resolveRecurrence(name: string, options: { cron?: unknown; everyMs?: unknown; timeZone?: unknown; catchUp?: unknown }): Recurrence {
  const fail = (problem: string): never => {
    throw new InvalidScheduleError(name, problem);
  };
  if (typeof options !== 'object' || options === null) fail(`the options must be an object with "cron" or "everyMs", got ${describeType(options)}.`);
  const { cron, everyMs, timeZone, catchUp = DEFAULT_CATCH_UP } = options;
  if (!CATCH_UP_POLICIES.includes(catchUp as CatchUpPolicy)) fail(`"catchUp" must be one of ${CATCH_UP_POLICIES.map((p) => `'${p}'`).join(', ')}, got ${describeType(catchUp)}.`);
  if (cron !== undefined && everyMs !== undefined) fail('give either "cron" or "everyMs", not both.');
  if (cron === undefined && everyMs === undefined) fail('give "cron" (a cron expression) or "everyMs" (an interval in ms).');
  if (everyMs !== undefined) {
    if (timeZone !== undefined) fail('"timeZone" applies to "cron" only; "everyMs" counts from the Unix epoch, in no time zone.');
    if (typeof everyMs !== 'number' || !Number.isInteger(everyMs) || everyMs < MIN_EVERY_MS || everyMs > MAX_DELAY_MS) {
      fail(`"everyMs" must be a whole number of ms from ${MIN_EVERY_MS} to ${MAX_DELAY_MS}, got ${describeType(everyMs)}.`);
    }
    return { everyMs: everyMs as number, catchUp: catchUp as CatchUpPolicy };
  }
  if (typeof cron !== 'string' || cron.trim() === '') fail(`"cron" must be a cron expression such as '0 2 * * *', got ${describeType(cron)}.`);
  if (timeZone !== undefined && (typeof timeZone !== 'string' || !isTimeZone(timeZone))) {
    const given = typeof timeZone === 'string' ? `'${timeZone}', which this runtime does not know` : describeType(timeZone);
    fail(`"timeZone" must be an IANA time zone such as 'Europe/Berlin', got ${given}.`);
  }
  const recurrence: Recurrence = { cron: cron as string, catchUp: catchUp as CatchUpPolicy };
  if (timeZone !== undefined) recurrence.timeZone = timeZone as string;
  let pattern: Cron;
  try {
    pattern = cronOf(recurrence);
  } catch (error) {
    return fail(`"cron" '${String(cron)}' is not a valid cron expression (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (pattern.nextRun(new Date(0)) === null) fail(`"cron" '${String(cron)}' never fires.`);
  return recurrence;
}

/**
 * The first occurrence strictly after `after` (ms since the epoch). A cron expression is read in
 * its time zone: a local time that a daylight-saving jump skips fires at the first instant after
 * the jump, and one that a fall-back repeats fires once.
 */
export function nextOccurrence(recurrence: Recurrence, after: number): number {
  if (recurrence.everyMs !== undefined) return (Math.floor(after / recurrence.everyMs) + 1) * recurrence.everyMs;
  const next = cronOf(recurrence).nextRun(new Date(after));
  // resolveRecurrence refused an expression that never fires; one that stops firing (a year field) ends here.
  if (next === null) return Number.NaN;
  return next.getTime();
}

/**
 * What to do with the occurrence due at `occurrenceAt`, claimed at store time `now`. It was missed
 * when its successor is due by `now` too (no instance fired it in time). Then `catchUp` decides:
 * `all` runs it and writes its successor (already due: every missed one runs, in order); `once`
 * runs it once for all of them and writes the first occurrence after `now`; `skip` does not run
 * it and writes the first occurrence after `now`.
 */
export function planOccurrence(recurrence: Recurrence, occurrenceAt: number, now: number): OccurrencePlan {
  const successor = nextOccurrence(recurrence, occurrenceAt);
  if (!(successor <= now) || recurrence.catchUp === 'all') return { run: true, missed: 0, nextAt: successor };
  return { run: recurrence.catchUp === 'once', missed: countBetween(recurrence, occurrenceAt, now), nextAt: nextOccurrence(recurrence, now) };
}

/** Occurrences in (`after`, `until`], counted up to `MAX_COUNTED_MISSED`. */
function countBetween(recurrence: Recurrence, after: number, until: number): number {
  if (recurrence.everyMs !== undefined) {
    return Math.min(MAX_COUNTED_MISSED, Math.floor(until / recurrence.everyMs) - Math.floor(after / recurrence.everyMs));
  }
  let count = 0;
  for (let at = nextOccurrence(recurrence, after); at <= until && count < MAX_COUNTED_MISSED; at = nextOccurrence(recurrence, at)) count++;
  return count;
}

/** Parsed cron expressions by expression and zone: an occurrence's plan may walk many of them. */
const parsed = new Map<string, Cron>();
const MAX_PARSED = 1_000;

function cronOf(recurrence: Recurrence): Cron {
  const timezone = recurrence.timeZone ?? 'UTC';
  const key = `${timezone} ${recurrence.cron!}`;
  let cron = parsed.get(key);
  if (!cron) {
    cron = new Cron(recurrence.cron!, { paused: true, timezone });
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(key, cron);
  }
  return cron;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
