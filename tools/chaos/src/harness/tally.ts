import type { EffectsSnapshot } from './effects-store.js';

/** Figures of one scenario, computed from what was scheduled and what the handlers recorded. */
export interface Figures {
  /** Acknowledged schedules expected to produce an effect. */
  scheduled: number;
  /** Acknowledged schedules with no effect. */
  lost: number;
  /**
   * Effects made twice: an id whose effect was applied more than once, or whose handler ran its
   * effect again (with a token passing the fence) after the library had accepted an ack for it.
   */
  duplicateEffects: number;
  /** Ids whose effect was applied more than once (the first part of `duplicateEffects`). */
  appliedTwice: number;
  /**
   * Ids run again with a token passing the fence after the library had accepted an ack for them
   * (the second part of `duplicateEffects`): the idempotent write absorbed the run, a handler
   * guarded by the fence alone would have made its effect twice.
   */
  rerunAfterAck: number;
  /** Handler runs beyond the first of an id, not counting runs that failed on purpose. */
  duplicateDeliveries: number;
  /** Greatest effect time minus due time (ms), over ids with an effect; 0 when none. */
  maxLatenessMs: number;
  /** Runs that started before their due time. */
  earlyFires: number;
  /** Runs whose fencing token was not greater than an earlier run's token for the same id. */
  tokenRegressions: number;
  /** Effect writes refused by the fence (a stale worker's late write). */
  staleWritesRefused: number;
  /** Later runs whose effect was already there (absorbed by the idempotent write). */
  absorbedRepeats: number;
  /** Ids whose first handler run came on attempt 2 or later: an earlier claim was orphaned and recovered by its lease. */
  recoveredOrphans: number;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/**
 * Counts one scenario. `expected` maps each acknowledged schedule's id to its due time (Redis
 * clock, the same host clock the effects server stamps with); only those ids count as scheduled
 * or lost, while duplicates are counted over every id the handlers saw.
 */
export function tally(expected: ReadonlyMap<string, number>, snapshot: EffectsSnapshot): Figures {
  let lost = 0;
  let maxLatenessMs = 0;
  let earlyFires = 0;
  for (const [id, dueAt] of expected) {
    const effectAt = snapshot.effectAt.get(id);
    if (effectAt === undefined) lost += 1;
    else maxLatenessMs = Math.max(maxLatenessMs, effectAt - dueAt);
    const first = snapshot.firstDelivery.get(id);
    if (first !== undefined && first < dueAt) earlyFires += 1;
  }
  let appliedTwice = 0;
  for (const count of snapshot.applied.values()) appliedTwice += Math.max(0, count - 1);
  let rerunAfterAck = 0;
  for (const [id, acked] of snapshot.ackedToken) {
    const latest = snapshot.maxEffectToken.get(id);
    if (latest !== undefined && latest > acked) rerunAfterAck += 1;
  }
  let duplicateDeliveries = 0;
  for (const count of snapshot.deliveries.values()) duplicateDeliveries += Math.max(0, count - 1);
  return {
    scheduled: expected.size,
    lost,
    duplicateEffects: appliedTwice + rerunAfterAck,
    appliedTwice,
    rerunAfterAck,
    duplicateDeliveries,
    maxLatenessMs,
    earlyFires,
    tokenRegressions: sum(snapshot.regressions.values()),
    staleWritesRefused: sum(snapshot.staleRejected.values()),
    absorbedRepeats: sum(snapshot.repeats.values()),
    recoveredOrphans: [...snapshot.firstAttempt.values()].filter((attempt) => attempt > 1).length,
  };
}

/** What a scenario requires of its figures. Absent limits are reported, not judged. */
export interface Targets {
  maxLost?: number;
  maxDuplicateEffects?: number;
  maxDuplicateDeliveries?: number;
  /** Largest lateness allowed (ms). */
  boundMs?: number;
  /** Token regressions allowed (default 0); above 0 only where two primaries hand out tokens (a split brain), to measure them. */
  maxTokenRegressions?: number;
}

/** One named check of a scenario beyond the figures (e.g. "a late ack was refused"). */
export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

/**
 * Judges figures against targets and extra checks. Every scenario also requires no early fire and,
 * unless its targets allow some, no token regression. Returns the failed checks (empty when the scenario passes).
 */
export function judge(figures: Figures, targets: Targets, checks: readonly Check[] = []): string[] {
  const failures: string[] = [];
  const limit = (label: string, value: number, max: number | undefined) => {
    if (max !== undefined && value > max) failures.push(`${label} ${value} > ${max}`);
  };
  limit('lost', figures.lost, targets.maxLost);
  limit('duplicate effects', figures.duplicateEffects, targets.maxDuplicateEffects);
  limit('duplicate deliveries', figures.duplicateDeliveries, targets.maxDuplicateDeliveries);
  limit('max lateness ms', figures.maxLatenessMs, targets.boundMs);
  limit('early fires', figures.earlyFires, 0);
  limit('token regressions', figures.tokenRegressions, targets.maxTokenRegressions ?? 0);
  for (const check of checks) {
    if (!check.ok) failures.push(check.detail ? `${check.name}: ${check.detail}` : check.name);
  }
  return failures;
}
