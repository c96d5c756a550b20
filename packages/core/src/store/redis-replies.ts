import type { CancelResult, ScheduleIfExists, ScheduleOutcome, TimeoutState } from '../types.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { RedisReplyError } from './redis-reply.error.js';
import { SlotLockedError } from './slot-locked.error.js';
import { SlotMovedError } from './slot-moved.error.js';
import type { AckResult, ClaimedTimeout, ClaimIncident, ClaimResult, MovedEntry, StoredTimeout, StoreScheduleItem, TopicLayout } from './timeout-store.js';

/**
 * The Redis store's side of the scripts' calling conventions: what their codes mean, how their
 * replies decode (each reply is checked; anything else is a `RedisReplyError` naming the script),
 * and the arguments a few of them take. The script headers (src/commands/*.lua) are the other side.
 */

/** A script argument. */
export type ScriptArg = string | number;

export const STATES: Record<number, TimeoutState> = { 1: 'pending', 2: 'firing', 3: 'dead' };
export const SCHEDULE_OUTCOMES: Record<number, ScheduleOutcome> = { 0: 'created', 1: 'replaced', 2: 'replaced_firing', 3: 'kept', 4: 'kept_firing' };
export const CANCEL_RESULTS: Record<number, CancelResult> = { 0: 'not_found', 1: 'cancelled', 2: 'firing' };

const STATE_CODES: Record<TimeoutState, number> = { pending: 1, firing: 2, dead: 3 };

/** The schedule script's mode letter after the timing letter (see its header); replace adds none. */
const IF_EXISTS_CODES: Record<ScheduleIfExists, string> = { replace: '', keep: 'k', earlier: 'e', later: 'l' };

/** Timeouts as the schedule script takes them: id, index of its bucket key, timing and mode letters, delay or time, payload. */
export function scheduleArgs(items: readonly StoreScheduleItem[], keyIndex: (item: number) => number): ScriptArg[] {
  return items.flatMap(({ id, entry }, i) => {
    const mode = entry.ifExists === undefined ? '' : IF_EXISTS_CODES[entry.ifExists];
    if (entry.at === undefined) return [id, keyIndex(i), mode === '' ? 'd' : `d${mode}`, Math.round(entry.delayMs ?? 0), entry.payload];
    return [id, keyIndex(i), mode === '' ? 'a' : `a${mode}`, Math.round(entry.at), entry.payload];
  });
}

/** Moved entries as the migration scripts take them: id, state code, score, stored value. */
export function entryArgs(entries: readonly MovedEntry[]): ScriptArg[] {
  return entries.flatMap((entry) => [entry.id, STATE_CODES[entry.state], entry.score, entry.value]);
}

export function flags(reply: unknown, length: number, script: string): boolean[] {
  if (!Array.isArray(reply) || reply.length !== length) throw unexpected(script, reply);
  return reply.map((flag) => mapFlag(flag, script));
}

/** A registry value, `<slots>` or `<from>><to>`, as a `TopicLayout`; undefined when it is neither. */
export function parseLayout(value: unknown): TopicLayout | undefined {
  const match = typeof value === 'string' ? /^(\d{1,4})(?:>(\d{1,4}))?$/.exec(value) : null;
  if (!match) return undefined;
  return match[2] === undefined ? { slots: Number(match[1]) } : { slots: Number(match[1]), migratingTo: Number(match[2]) };
}

/** An ack script's answer for one entry: 1, 0, or 'fwd:<slot>'. */
export function ackResult(code: unknown, script: string): AckResult {
  if (code === 1) return 'acked';
  if (code === 0) return 'stale';
  const forward = typeof code === 'string' ? /^fwd:(\d+)$/.exec(code) : null;
  if (!forward) throw unexpected(script, code);
  return { forwardedTo: Number(forward[1]) };
}

/** The reply of the get script (see its header) as a `StoredTimeout`, or null when there is none. */
export function decodeStored(id: string, reply: unknown): StoredTimeout | null {
  if (reply === null) return null;
  const [state, dueAt, scheduledAt, attempt, fencingToken, leaseExpiresAt, lastError, payload] = tuple(reply, 'get', 8);
  const stored: StoredTimeout = {
    id,
    state: mapCode(STATES, state, 'get'),
    dueAt: Number(dueAt),
    scheduledAt: Number(scheduledAt),
    attempt: Number(attempt),
    fencingToken: Number(fencingToken),
    payload: String(payload),
  };
  if (stored.state === 'firing') stored.leaseExpiresAt = Number(leaseExpiresAt);
  if (lastError !== '') stored.lastError = String(lastError);
  return stored;
}

/** A bulk script's code for one item that a slot migration refused (a string) as its typed error; undefined otherwise. */
export function refusedItem(code: unknown): Error | undefined {
  return typeof code === 'string' ? routingError(new Error(code)) : undefined;
}

/** The typed error of a script's refusal by `check_layout` (includes/stored.lua), or undefined for any other error. */
export function routingError(error: unknown): Error | undefined {
  const match = error instanceof Error ? /^DT(MOVED|LOCKED) (\d+)/.exec(error.message) : null;
  if (!match) return undefined;
  const slots = Number(match[2]);
  return match[1] === 'MOVED'
    ? new SlotMovedError(redisStoreMessages.slotMoved(slots), slots)
    : new SlotLockedError(redisStoreMessages.slotLocked(slots), slots);
}

const INCIDENT_KINDS: Record<number, ClaimIncident['kind']> = {
  1: 'lease_retried',
  2: 'lease_dead',
  3: 'corrupt',
  4: 'missing',
  5: 'late_dead',
  6: 'late_skipped',
};

/** The reply of the claim script (see its header) as a `ClaimResult`. */
export function decodeClaim(reply: unknown): ClaimResult {
  if (!Array.isArray(reply) || reply.length < 6 || (reply.length - 6) % 6 !== 0 || !Array.isArray(reply[4]) || !Array.isArray(reply[5])) {
    throw unexpected('claim', reply);
  }
  const claimed: ClaimedTimeout[] = [];
  for (let i = 6; i < reply.length; i += 6) {
    claimed.push({
      id: String(reply[i]),
      dueAt: Number(reply[i + 1]),
      scheduledAt: Number(reply[i + 2]),
      attempt: Number(reply[i + 3]),
      fencingToken: Number(reply[i + 4]),
      payload: String(reply[i + 5]),
    });
  }
  const given = reply[5] as unknown[];
  const incidents: ClaimIncident[] = [];
  for (let i = 0; i + 5 < given.length; i += 6) {
    const incident: ClaimIncident = {
      id: String(given[i]),
      kind: mapCode(INCIDENT_KINDS, given[i + 1], 'claim'),
      attempts: Number(given[i + 2]),
      at: Number(given[i + 3]),
      error: String(given[i + 4]),
    };
    if (incident.kind === 'late_dead' || incident.kind === 'late_skipped') incident.dueAt = Number(given[i + 5]);
    incidents.push(incident);
  }
  if (reply[2] === -1) return { claimed, incidents, now: Number(reply[0]), nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null, paused: true };
  return {
    claimed,
    incidents,
    now: Number(reply[0]),
    nextDueAt: reply[1] === null ? null : Number(reply[1]),
    recovered: Number(reply[2]),
    nextLeaseExpiresAt: reply[3] === null ? null : Number(reply[3]),
  };
}

export function unexpected(script: string, reply: unknown): RedisReplyError {
  return new RedisReplyError(redisStoreMessages.unexpectedReply(script, reply), script);
}

export function tuple(reply: unknown, script: string, length: number): unknown[] {
  if (!Array.isArray(reply) || reply.length < length) throw unexpected(script, reply);
  return reply;
}

export function mapCode<T>(table: Record<number, T>, code: unknown, script: string): T {
  const mapped = typeof code === 'number' && Object.hasOwn(table, code) ? table[code] : undefined;
  if (mapped === undefined) throw unexpected(script, code);
  return mapped;
}

export function mapFlag(reply: unknown, script: string): boolean {
  if (reply !== 0 && reply !== 1) throw unexpected(script, reply);
  return reply === 1;
}

export function count(reply: unknown, script: string): number {
  if (typeof reply !== 'number' || reply < 0) throw unexpected(script, reply);
  return reply;
}
