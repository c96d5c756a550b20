import { LATE_ERROR, LEASE_EXPIRED_ERROR, slotOf } from '@durable-timeout/core';
import type { CancelResult, ClaimResult, FailOutcome, LatePolicy, RenewResult, ScheduleIfExists, ScheduleOutcome, StoredTimeout, TimeoutState } from '@durable-timeout/core';

/** One timeout as the reference model knows it. */
export interface ModelEntry {
  state: TimeoutState;
  /** Pending: due time. Firing: due time of the claimed run. Dead: time of death. */
  dueAt: number;
  payload: string;
  attempt: number;
  /** The current fencing token while firing; 0 otherwise. */
  token: number;
  leaseExpiresAt: number;
  lastError: string | undefined;
  /** The slot it was claimed from while firing (where its worker sends the ack). */
  claimedIn: number;
}

/** What the store does with expired leases in a model run: few attempts, no backoff, so every path is reached quickly. */
export const MODEL_EXPIRY = { maxAttempts: 2, backoff: { baseMs: 0, capMs: 0 } } as const;

/**
 * A reference model of one topic of a `TimeoutStore`: a map from id to its state, with the rules of
 * the store contract written as plainly as possible. It predicts every result the store gives for
 * a call; times come from the store's own answers (its clock is the truth), so the same model
 * checks a Redis store on a real clock and the memory store on a manual one.
 */
export class StoreModel {
  readonly entries = new Map<string, ModelEntry>();
  /** Every fencing token handed to each id so far: a new one must be above them all. */
  readonly lastToken = new Map<string, number>();
  /** The latest store time seen in an answer. */
  now = 0;
  /** Paused slots and when they were paused (a migration carries the topic's pause: see `migrate`). */
  readonly pausedAt = new Map<number, number>();

  constructor(
    /** The topic's slot count now. */
    public slots: number,
  ) {}

  /**
   * A slot migration to `to` slots: the slots it gains are paused since the earliest pause of the
   * old ones (not paused when none is), those a shrink gives up lose their pause.
   */
  migrate(to: number): void {
    const from = this.slots;
    if (to > from) {
      const times = [...this.pausedAt].filter(([slot]) => slot < from).map(([, at]) => at);
      for (let slot = from; slot < to; slot++) {
        if (times.length === 0) this.pausedAt.delete(slot);
        else this.pausedAt.set(slot, Math.min(...times));
      }
    } else {
      for (let slot = to; slot < from; slot++) this.pausedAt.delete(slot);
    }
    this.slots = to;
  }

  /** The slot of an id under the current slot count. */
  slotOf(id: string): number {
    return this.slots === 1 ? 0 : slotOf(id, this.slots);
  }

  /**
   * Applies a schedule the store answered with `answer`, and returns what it should have answered.
   * The requested due time is known to lie in `requested` (a delay counts from the store clock,
   * which the caller knows only within the call's round trip); when the mode's decision depends on
   * where in that range it fell, the store's answer decides, and is checked for consistency.
   */
  scheduled(
    id: string,
    payload: string,
    ifExists: ScheduleIfExists | undefined,
    requested: { min: number; max: number },
    answer: { outcome: ScheduleOutcome; dueAt: number },
  ): { outcome: ScheduleOutcome; dueAt: number } {
    const previous = this.entries.get(id);
    if (previous && previous.state !== 'dead') {
      const keepsAtMin = keepsExisting(ifExists, requested.min, previous.dueAt);
      const keepsAtMax = keepsExisting(ifExists, requested.max, previous.dueAt);
      const storeKept = answer.outcome === 'kept' || answer.outcome === 'kept_firing';
      const keeps = keepsAtMin === keepsAtMax ? keepsAtMin : storeKept;
      if (keeps) return { outcome: previous.state === 'pending' ? 'kept' : 'kept_firing', dueAt: previous.dueAt };
    }
    const dueAt = answer.dueAt >= requested.min && answer.dueAt <= requested.max ? answer.dueAt : Number.NaN;
    const outcome: ScheduleOutcome = previous?.state === 'pending' ? 'replaced' : previous?.state === 'firing' ? 'replaced_firing' : 'created';
    this.entries.set(id, { state: 'pending', dueAt, payload, attempt: 0, token: 0, leaseExpiresAt: 0, lastError: undefined, claimedIn: -1 });
    return { outcome, dueAt };
  }

  cancel(id: string): CancelResult {
    const entry = this.entries.get(id);
    if (entry?.state === 'pending') {
      this.entries.delete(id);
      return 'cancelled';
    }
    if (entry?.state !== 'firing') return 'not_found';
    // A firing timeout is removed too: its delivery's ack, failure record and lease expiry find nothing.
    this.entries.delete(id);
    return 'firing';
  }

  /** What `get` must answer (payload, state, attempt, token, due time, lease, last error). */
  expectedGet(id: string): Partial<StoredTimeout> | null {
    const entry = this.entries.get(id);
    if (!entry) return null;
    const expected: Partial<StoredTimeout> = {
      id,
      state: entry.state,
      dueAt: entry.dueAt,
      attempt: entry.attempt,
      fencingToken: entry.state === 'firing' ? entry.token : 0,
      payload: entry.payload,
    };
    if (entry.state === 'firing') expected.leaseExpiresAt = entry.leaseExpiresAt;
    return expected;
  }

  /**
   * Applies a claim of `slot` that the store answered with `result`, and returns what the store
   * should have answered, built from the model (tokens and times taken from the answer once
   * checked, since they come from the store's counter and clock). Throws when the answer breaks a rule.
   */
  claim(
    slot: number,
    limit: number,
    leaseMs: number,
    result: ClaimResult,
    late?: LatePolicy,
  ): Omit<ClaimResult, 'claimed'> & { claimed: Omit<ClaimResult['claimed'][number], 'scheduledAt'>[] } {
    const now = this.later(result.now);
    if (this.pausedAt.has(slot)) return { claimed: [], incidents: [], now, nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null, paused: true };
    const inSlot = [...this.entries].filter(([id]) => this.slotOf(id) === slot);
    const expired = inSlot
      .filter(([, entry]) => entry.state === 'firing' && entry.leaseExpiresAt <= now)
      .sort(([a, x], [b, y]) => x.leaseExpiresAt - y.leaseExpiresAt || compareIds(a, b));
    const incidents: ClaimResult['incidents'] = [];
    for (const [id, entry] of expired) {
      entry.token = 0;
      entry.leaseExpiresAt = 0;
      entry.lastError = LEASE_EXPIRED_ERROR;
      entry.dueAt = now;
      entry.claimedIn = -1;
      if (entry.attempt >= MODEL_EXPIRY.maxAttempts) {
        entry.state = 'dead';
        incidents.push({ id, kind: 'lease_dead', attempts: entry.attempt, at: now, error: LEASE_EXPIRED_ERROR });
      } else {
        entry.state = 'pending';
        incidents.push({ id, kind: 'lease_retried', attempts: entry.attempt, at: now, error: LEASE_EXPIRED_ERROR });
      }
    }
    const due = inSlot
      .filter(([, entry]) => entry.state === 'pending' && entry.dueAt <= now)
      .sort(([a, x], [b, y]) => x.dueAt - y.dueAt || compareIds(a, b))
      .slice(0, limit);
    // The late policy refuses, in due order, what it finds more than afterMs past its due time.
    const refuses = late !== undefined && late.action !== 'fire';
    const taken = due.filter(([id, entry]) => {
      if (!refuses || now - entry.dueAt <= late.afterMs) return true;
      const dueAt = entry.dueAt;
      if (late.action === 'dead-letter') {
        entry.state = 'dead';
        entry.dueAt = now;
        entry.lastError = LATE_ERROR;
        incidents.push({ id, kind: 'late_dead', attempts: entry.attempt, at: now, error: LATE_ERROR, dueAt });
      } else {
        this.entries.delete(id);
        incidents.push({ id, kind: 'late_skipped', attempts: entry.attempt, at: now, error: '', dueAt });
      }
      return false;
    });
    const claimed = taken.map(([id, entry], i) => {
      const token = result.claimed[i]?.fencingToken ?? Number.NaN;
      const previous = this.lastToken.get(id) ?? 0;
      if (!(token > previous)) throw new Error(`fencing token of "${id}" did not grow: ${token} after ${previous}`);
      if (i > 0 && !(token > result.claimed[i - 1]!.fencingToken)) throw new Error('fencing tokens of one claim did not grow');
      this.lastToken.set(id, token);
      entry.state = 'firing';
      entry.attempt += 1;
      entry.token = token;
      entry.leaseExpiresAt = now + leaseMs;
      entry.claimedIn = slot;
      return { id, dueAt: entry.dueAt, attempt: entry.attempt, fencingToken: token, payload: entry.payload };
    });
    const left = [...this.entries].filter(([id]) => this.slotOf(id) === slot);
    const pendingDue = left.filter(([, entry]) => entry.state === 'pending').map(([, entry]) => entry.dueAt);
    const leases = left.filter(([, entry]) => entry.state === 'firing').map(([, entry]) => entry.leaseExpiresAt);
    return {
      claimed,
      incidents,
      now,
      nextDueAt: pendingDue.length ? Math.min(...pendingDue) : null,
      recovered: expired.length,
      nextLeaseExpiresAt: leases.length ? Math.min(...leases) : null,
    };
  }

  /** Applies a pause of `slot` answered at store time `now`; returns the pause time the store must report. */
  pause(slot: number, now: number): number {
    this.later(now);
    if (!this.pausedAt.has(slot)) this.pausedAt.set(slot, now);
    return this.pausedAt.get(slot)!;
  }

  /** Applies a resume of `slot` answered at store time `now`; returns what the store must report. */
  resume(slot: number, shift: boolean, now: number): { now: number; pausedAt: number | null; shifted: number } {
    this.later(now);
    const pausedAt = this.pausedAt.get(slot);
    if (pausedAt === undefined) return { now, pausedAt: null, shifted: 0 };
    this.pausedAt.delete(slot);
    let shifted = 0;
    const delta = now - pausedAt;
    if (shift && delta > 0) {
      for (const [id, entry] of this.entries) {
        if (entry.state !== 'pending' || this.slotOf(id) !== slot) continue;
        entry.dueAt += delta;
        shifted += 1;
      }
    }
    return { now, pausedAt, shifted };
  }

  /** Whether an ack (or fail, or release) with `token` holds the current lease of `id`. */
  holds(id: string, token: number): boolean {
    const entry = this.entries.get(id);
    return entry?.state === 'firing' && token > 0 && entry.token === token;
  }

  /**
   * Applies a lease renewal the store answered with `answer`; returns what it should have answered.
   * The new expiry comes from the store clock: it must be at least `minNow + leaseMs` (the clock
   * before the call) and never below the lease it had.
   */
  renew(id: string, token: number, leaseMs: number, minNow: number, answer: RenewResult): RenewResult {
    if (!this.holds(id, token)) return 'stale';
    const entry = this.entries.get(id)!;
    const reported = typeof answer === 'object' && 'leaseExpiresAt' in answer ? answer.leaseExpiresAt : Number.NaN;
    const expected = reported >= Math.max(entry.leaseExpiresAt, minNow + leaseMs) ? reported : Number.NaN;
    entry.leaseExpiresAt = expected;
    return { leaseExpiresAt: expected };
  }

  ack(id: string, token: number): 'acked' | 'stale' {
    if (!this.holds(id, token)) return 'stale';
    this.entries.delete(id);
    return 'acked';
  }

  /** Applies a failure record the store answered with `outcome`; returns what it should have answered. */
  fail(id: string, token: number, error: string, retryDelayMs: number, maxAttempts: number, outcome: FailOutcome): FailOutcome {
    if (!this.holds(id, token)) return { outcome: 'stale' };
    const entry = this.entries.get(id)!;
    entry.token = 0;
    entry.leaseExpiresAt = 0;
    entry.lastError = error;
    entry.claimedIn = -1;
    if (entry.attempt >= maxAttempts) {
      const deadAt = outcome.outcome === 'dead' ? this.later(outcome.deadAt) : Number.NaN;
      entry.state = 'dead';
      entry.dueAt = deadAt;
      return { outcome: 'dead', deadAt };
    }
    const retryAt = outcome.outcome === 'retried' ? this.later(outcome.retryAt - retryDelayMs) + retryDelayMs : Number.NaN;
    entry.state = 'pending';
    entry.dueAt = retryAt;
    return { outcome: 'retried', retryAt };
  }

  /** Applies a release; the store tells the new due times (its clock now) through `dueAtOf`. */
  release(id: string, token: number): boolean {
    if (!this.holds(id, token)) return false;
    const entry = this.entries.get(id)!;
    entry.state = 'pending';
    entry.attempt = Math.max(0, entry.attempt - 1);
    entry.token = 0;
    entry.leaseExpiresAt = 0;
    entry.claimedIn = -1;
    return true;
  }

  /** Dead letters back to pending with attempts reset (all when `ids` is omitted); returns the ids moved. */
  replay(ids?: readonly string[]): string[] {
    const moved = this.deadIds(ids);
    for (const id of moved) {
      const entry = this.entries.get(id)!;
      Object.assign(entry, { state: 'pending', attempt: 0, lastError: undefined });
    }
    return moved;
  }

  purge(ids?: readonly string[]): number {
    const gone = this.deadIds(ids);
    for (const id of gone) this.entries.delete(id);
    return gone.length;
  }

  /** Counts over the topic. */
  counts(): { pending: number; firing: number; dead: number } {
    const counts = { pending: 0, firing: 0, dead: 0 };
    for (const entry of this.entries.values()) counts[entry.state] += 1;
    return counts;
  }

  /** A time the store reported for something that happened now: never before the last one seen. */
  later(at: number): number {
    if (at < this.now) throw new Error(`store clock went back: ${at} < ${this.now}`);
    this.now = at;
    return at;
  }

  private deadIds(ids?: readonly string[]): string[] {
    const chosen = ids ?? [...this.entries.keys()];
    return [...new Set(chosen)].filter((id) => this.entries.get(id)?.state === 'dead');
  }
}

/** The rule of `ScheduleIfExists`: whether a schedule due at `dueAt` leaves a pending or firing timeout due at `current` as it is. */
export function keepsExisting(ifExists: ScheduleIfExists | undefined, dueAt: number, current: number): boolean {
  if (ifExists === 'keep') return true;
  if (ifExists === 'earlier') return dueAt >= current;
  if (ifExists === 'later') return dueAt <= current;
  return false;
}

/** Compares ids by their UTF-8 bytes, as Redis orders members of equal score. */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
