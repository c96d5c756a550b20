import type { CancelResult, JsonValue, ScheduleResult, TimeoutEvent, TimeoutHandler, TimeoutInfo } from '../types.js';
import type {
  RecurringScheduleInfo, RecurringScheduleOptions, RecurringScheduleResult, ScheduleHandler,
} from '../recurring-types.js';
import type { SlotRef, StoreReads } from '../store/timeout-store.js';
import { DuplicateHandlerError } from '../errors/duplicate-handler.error.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { InvalidScheduleError } from '../errors/invalid-schedule.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { describeType } from '../validation/describe-type.js';
import { assertTimeoutId } from '../validation/timeout-id.js';
import { nextOccurrence, planOccurrence, resolveRecurrence, type Recurrence } from '../validation/recurrence.js';
import { TimeoutDelivery } from './timeout-delivery.js';

/** The topic recurring schedules live in: declare it in `topics` (its options are theirs: lease, retries, slots). */
export const SCHEDULES_TOPIC = 'schedules';

/** Largest page of the engine's listings. */
const PAGE = 1_000;
/** How deep the engine's listings page (offset + limit). */
const MAX_LISTED = 10_000;

/** What an occurrence's timeout carries: the schedule's recurrence, its occurrence time and the user's payload. */
interface StoredOccurrence {
  schedule: Recurrence;
  at: number;
  payload?: JsonValue;
  /** Set while the schedule is paused (`schedules.pause`); absent otherwise (and in occurrences stored before pausing existed). */
  paused?: true;
}

/** What the schedules need of the engine, on the schedules topic (`DurableTimeouts` gives it). */
export interface ScheduleEngine {
  /** Throws unless the schedules topic is configured and the engine usable (`operation` names the call). */
  assertUsable(operation: string): void;
  /** `schedule` on the schedules topic. */
  schedule(id: string, options: { at: number; payload: JsonValue; ifExists?: 'keep' }): Promise<ScheduleResult>;
  /** The stored text of an occurrence's payload, as `schedule` would store it (for `ackNext`). */
  serialize(payload: JsonValue): string;
  /** `cancel` on the schedules topic. */
  cancel(id: string): Promise<CancelResult>;
  /** `get` on the schedules topic. */
  get(id: string): Promise<TimeoutInfo<unknown> | null>;
  /** A page of `listPending` on the schedules topic. */
  listPending(offset: number, limit: number): Promise<TimeoutInfo<unknown>[]>;
  /** The ids of a page of `listDead` on the schedules topic. */
  listDeadIds(offset: number, limit: number): Promise<string[]>;
  /** `purgeDead` of chosen ids on the schedules topic. */
  purgeDead(ids: readonly string[]): Promise<number>;
  /** The slots of the schedules topic (to list its firing ones). */
  slotRefs(): readonly SlotRef[];
  /** The store's reads (to list the firing ones). */
  reads(): StoreReads;
  /** Registers the topic handler of the schedules topic. */
  handle(handler: TimeoutHandler<unknown>): void;
  /** The store clock now (Redis `TIME`), for a new schedule's first occurrence. */
  storeNow(): Promise<number>;
  /** The store clock as this instance estimates it, for an occurrence claimed just now. */
  clockNow(): number;
}

/**
 * Recurring schedules (`timeouts.schedules`): each is one timeout of the schedules topic whose id is
 * the schedule's name. It fires like any timeout (claimed by one instance, leased, retried,
 * dead-lettered); when its handler returns, the ack writes the next occurrence under the same id in
 * the same atomic step, fenced by the delivery's token, so every occurrence fires once across all
 * instances and a stale worker can neither ack nor schedule again. See docs/SCHEDULES.md.
 */
export class RecurringSchedules {
  private readonly handlers = new Map<string, ScheduleHandler<JsonValue>>();
  private registered = false;

  constructor(private readonly engine: ScheduleEngine) {}

  /**
   * Creates or updates the recurring schedule `name`. When it exists with the same options it is
   * left as it is (`unchanged`: every instance may upsert it at boot); with other options its next
   * occurrence is computed anew from now (`updated`). A schedule whose occurrence was
   * dead-lettered is started again. A paused schedule stays paused (`unchanged` or `updated`: an
   * instance that restarts does not resume it). Bad options throw `InvalidScheduleError` and store nothing.
   */
  async upsert<TPayload extends JsonValue = JsonValue>(name: string, options: RecurringScheduleOptions<TPayload>): Promise<RecurringScheduleResult> {
    this.engine.assertUsable('schedules.upsert');
    assertTimeoutId(name);
    const schedule = resolveRecurrence(name, options);
    const stored: StoredOccurrence = { schedule, at: 0 };
    if (options.payload !== undefined) stored.payload = options.payload;
    const existing = await this.engine.get(name);
    const previous = existing ? readOccurrence(existing.payload) : undefined;
    const current = existing?.state !== 'dead' ? previous : undefined;
    if (current && sameOptions(current, stored)) return { name, outcome: 'unchanged', nextAt: current.at };
    if (previous?.paused) stored.paused = true;
    stored.at = nextOccurrence(schedule, await this.engine.storeNow());
    // A first write keeps what another instance wrote meanwhile (the same first occurrence); a change replaces.
    const result = await this.engine.schedule(name, { at: stored.at, payload: stored as unknown as JsonValue, ...(current ? {} : { ifExists: 'keep' as const }) });
    const outcome = current ? 'updated' : result.outcome === 'kept' || result.outcome === 'kept_firing' ? 'unchanged' : 'created';
    return { name, outcome, nextAt: result.dueAt };
  }

  /**
   * Checks a schedule's name and options as `upsert` would, storing nothing: throws
   * `InvalidTimeoutIdError` or `InvalidScheduleError` (for integrations that declare schedules
   * and want every mistake before any of them is stored).
   */
  validate(name: string, options: RecurringScheduleOptions): void {
    assertTimeoutId(name);
    resolveRecurrence(name, options);
  }

  /**
   * Removes the recurring schedule `name`: no occurrence of it fires after this resolves (one that
   * runs now runs to its end, but writes no next one). True when it existed.
   */
  async remove(name: string): Promise<boolean> {
    this.engine.assertUsable('schedules.remove');
    assertTimeoutId(name);
    const cancelled = await this.engine.cancel(name);
    // A firing occurrence is removed with its lease and fencing token: its ack-and-next is refused as stale.
    if (cancelled === 'cancelled' || cancelled === 'firing') return true;
    return (await this.engine.purgeDead([name])) > 0;
  }

  /**
   * Pauses the recurring schedule `name` on every instance: none of its occurrences runs until
   * `resume` (they pass, each claimed and skipped without calling the handler). One that runs now
   * runs to its end but writes no next one. A dead-lettered schedule's chain starts again, paused.
   * Kept in Redis, also across `upsert`. True when the schedule exists (pausing a paused one changes nothing).
   */
  async pause(name: string): Promise<boolean> {
    const found = await this.occurrenceOf('schedules.pause', name);
    if (!found) return false;
    const { existing, stored } = found;
    if (stored.paused && existing.state !== 'dead') return true;
    // A dead occurrence's time has long passed: the chain restarts paused at its next occurrence.
    const at = existing.state === 'dead' ? this.nextOrKept(stored, await this.engine.storeNow()) : stored.at;
    // A replace: a firing occurrence's ack-and-next is refused as stale, so the paused entry stands.
    await this.write(name, { ...stored, at, paused: true });
    return true;
  }

  /**
   * Resumes the paused recurring schedule `name`: its next occurrence is the first one after now
   * (those that passed while it was paused are skipped, whatever its `catchUp`). True when the
   * schedule exists (resuming one that is not paused changes nothing).
   */
  async resume(name: string): Promise<boolean> {
    const found = await this.occurrenceOf('schedules.resume', name);
    if (!found) return false;
    const { stored } = found;
    if (!stored.paused) return true;
    const { paused: _paused, ...resumed } = stored;
    await this.write(name, { ...resumed, at: this.nextOrKept(stored, await this.engine.storeNow()) });
    return true;
  }

  /** The schedule `name` as `operation` reads it: its stored timeout and occurrence, or undefined when there is none. */
  private async occurrenceOf(operation: string, name: string): Promise<{ existing: TimeoutInfo<unknown>; stored: StoredOccurrence } | undefined> {
    this.engine.assertUsable(operation);
    assertTimeoutId(name);
    const existing = await this.engine.get(name);
    const stored = existing ? readOccurrence(existing.payload) : undefined;
    return existing && stored ? { existing, stored } : undefined;
  }

  /** Every recurring schedule: pending, firing or dead, by name (up to 10,000). */
  async list(): Promise<RecurringScheduleInfo[]> {
    this.engine.assertUsable('schedules.list');
    const found = new Map<string, TimeoutInfo<unknown>>();
    for (let offset = 0; offset < MAX_LISTED; offset += PAGE) {
      const page = await this.engine.listPending(offset, PAGE);
      for (const info of page) found.set(info.id, info);
      if (page.length < PAGE) break;
    }
    const reads = this.engine.reads();
    const firing = await Promise.all(this.engine.slotRefs().map((ref) => reads.listFiring(ref, 0, MAX_LISTED)));
    const dead: string[] = [];
    for (let offset = 0; offset < MAX_LISTED; offset += PAGE) {
      const page = await this.engine.listDeadIds(offset, PAGE);
      dead.push(...page);
      if (page.length < PAGE) break;
    }
    const others = [...firing.flat().map((entry) => entry.id), ...dead].filter((id) => !found.has(id));
    for (const info of await Promise.all(others.map((id) => this.engine.get(id)))) if (info) found.set(info.id, info);
    const listed: RecurringScheduleInfo[] = [];
    for (const info of found.values()) {
      const stored = readOccurrence(info.payload);
      if (stored) listed.push(describe(info, stored));
    }
    return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Registers the handler of the recurring schedule `name` on this instance (one per name). An
   * instance that handles any schedule claims occurrences of every schedule: register the
   * handlers of all of them on each such instance (an occurrence with no handler here fails and
   * is retried, possibly elsewhere).
   */
  handle<TPayload extends JsonValue = JsonValue>(name: string, handler: ScheduleHandler<TPayload>): this {
    this.engine.assertUsable('schedules.handle');
    assertTimeoutId(name);
    if (typeof handler !== 'function') throw new InvalidOptionsError(errorMessages.handlerNotFunction(`${SCHEDULES_TOPIC}/${name}`, describeType(handler)));
    if (this.handlers.has(name)) throw new DuplicateHandlerError(errorMessages.duplicateHandler(`${SCHEDULES_TOPIC}/${name}`));
    this.handlers.set(name, handler as ScheduleHandler<JsonValue>);
    if (!this.registered) {
      this.engine.handle(this.fire);
      this.registered = true;
    }
    return this;
  }

  /** Replaces the stored occurrence of `name` (a firing delivery of it becomes stale). */
  private async write(name: string, stored: StoredOccurrence): Promise<void> {
    await this.engine.schedule(name, { at: stored.at, payload: stored as unknown as JsonValue });
  }

  /** The schedule's first occurrence after `now`, or its stored one when its cron expression has ended. */
  private nextOrKept(stored: StoredOccurrence, now: number): number {
    const next = nextOccurrence(stored.schedule, now);
    return Number.isFinite(next) ? next : stored.at;
  }

  /** The schedules topic's handler: runs one occurrence as its schedule's `catchUp` says, then names the next one for the ack. */
  private readonly fire = async (event: TimeoutEvent<unknown>): Promise<void> => {
    const stored = readOccurrence(event.payload);
    if (!stored) throw new InvalidScheduleError(event.id, 'the stored occurrence is not a recurring schedule (written by another tool?); remove it and upsert it again.');
    if (stored.paused) {
      // Skipped without the handler; the next one is the first after now (no catch-up walk), still paused.
      this.setNext(event, stored, nextOccurrence(stored.schedule, Math.max(stored.at, this.engine.clockNow())));
      return;
    }
    const handler = this.handlers.get(event.id);
    if (!handler) throw new InvalidScheduleError(event.id, 'no handler is registered on this instance; register it with schedules.handle on every instance that handles schedules.');
    const plan = planOccurrence(stored.schedule, stored.at, this.engine.clockNow());
    if (plan.run) {
      await handler({
        name: event.id,
        occurrenceAt: stored.at,
        missed: plan.missed,
        payload: stored.payload,
        attempt: event.attempt,
        fencingToken: event.fencingToken,
        signal: event.signal,
        extendLease: (ms) => event.extendLease(ms),
      });
    }
    this.setNext(event, stored, plan.nextAt);
  };

  /** Names the occurrence the ack writes (the stored one at `nextAt`, its pause kept). */
  private setNext(event: TimeoutEvent<unknown>, stored: StoredOccurrence, nextAt: number): void {
    // A schedule whose cron expression ends (a year field) has no next occurrence: a plain ack.
    if (Number.isFinite(nextAt) && event instanceof TimeoutDelivery) {
      event.next = { dueAt: nextAt, payload: this.engine.serialize({ ...stored, at: nextAt } as unknown as JsonValue) };
    }
  }
}

function sameOptions(a: StoredOccurrence, b: StoredOccurrence): boolean {
  return JSON.stringify([a.schedule, a.payload]) === JSON.stringify([b.schedule, b.payload]);
}

/** The occurrence a stored payload holds, or undefined when it is not one (a tombstone, a hand-written value). */
function readOccurrence(payload: unknown): StoredOccurrence | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { schedule, at, paused, ...rest } = payload as Partial<StoredOccurrence>;
  if (typeof at !== 'number' || typeof schedule !== 'object' || schedule === null) return undefined;
  try {
    const recurrence = resolveRecurrence('stored', schedule);
    // An occurrence stored before pausing existed has no `paused`: not paused.
    return { ...rest, schedule: recurrence, at, ...(paused === true ? { paused: true as const } : {}) };
  } catch {
    return undefined;
  }
}

function describe(info: TimeoutInfo<unknown>, stored: StoredOccurrence): RecurringScheduleInfo {
  const { schedule } = stored;
  const listed: RecurringScheduleInfo = { name: info.id, catchUp: schedule.catchUp, payload: stored.payload, state: info.state, nextAt: stored.at, paused: stored.paused === true };
  if (schedule.cron !== undefined) listed.cron = schedule.cron;
  if (schedule.everyMs !== undefined) listed.everyMs = schedule.everyMs;
  if (schedule.timeZone !== undefined) listed.timeZone = schedule.timeZone;
  return listed;
}
