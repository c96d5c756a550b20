import type { SlotRef } from '../store/timeout-store.js';
import type { DeadLetter, PayloadCodec, TimeoutInfo, TopicSlotStats, TopicStats } from '../types.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { PayloadDecodeError } from '../errors/payload-decode.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { integerIn } from '../validation/options.js';
import { readPayloadText } from '../validation/safe-json.js';
import { assertTimeoutId } from '../validation/timeout-id.js';
import { splitCarried } from './carried-context.js';
import type { EngineContext } from './engine-context.js';
import { isSlotRefusal } from '../store/item-results.js';

/** Largest page `listDead` and `listPending` return, and deepest they page (offset + limit). */
const MAX_PAGE = 1_000;
const MAX_PAGE_DEPTH = 10_000;

/** A listing's page: `offset` and `limit` as `listDead` and `listPending` take them. */
export interface PageOptions {
  /** How many entries to skip, from 0; `offset + limit` at most 10,000. Default 0. */
  offset?: number;
  /** How many entries to return, 1 to 1,000. Default 100. */
  limit?: number;
}

/**
 * The engine's reads and its dead-letter operations: `get`, `stats`, `slotStats`, `listPending`,
 * `listDead`, `replayDead`, `purgeDead`. The engine checks that it is usable and that the topic
 * exists, then hands the call here. A topic's slots are read side by side and merged; a stored
 * payload that is not JSON (edited by hand) reads as null. One its codec cannot decode makes `get`
 * throw `PayloadDecodeError`, and reads as null with `payloadError` in the listings.
 */
export class TopicReads {
  constructor(
    private readonly context: EngineContext,
    /** The codec of a topic's payloads, or null. */
    private readonly codecOf: (topic: string) => PayloadCodec | null,
  ) {}

  /** `DurableTimeouts.get`, for a known topic. */
  async get(topic: string, id: string): Promise<TimeoutInfo<unknown> | null> {
    assertTimeoutId(id);
    await this.context.ensureInit(topic, 'await');
    const info = await this.read(topic, id);
    if (info?.payloadError === undefined) return info;
    const { payload: _none, payloadError, ...timeout } = info;
    throw new PayloadDecodeError(timeout, payloadError);
  }

  /** One timeout, with `payloadError` when its payload could not be decoded. */
  private async read(topic: string, id: string): Promise<TimeoutInfo<unknown> | null> {
    const { layouts } = this.context;
    const stored = await layouts.callById(topic, id, (ref) => this.context.reads.get(ref, id));
    if (stored === null) return null;
    const info: TimeoutInfo<unknown> = {
      topic,
      id,
      state: stored.state,
      dueAt: stored.dueAt,
      scheduledAt: stored.scheduledAt,
      attempt: stored.attempt,
      ...this.payloadOf(topic, stored.payload),
    };
    if (stored.leaseExpiresAt !== undefined) info.leaseExpiresAt = stored.leaseExpiresAt;
    if (stored.lastError !== undefined) info.lastError = stored.lastError;
    return info;
  }

  /** `DurableTimeouts.stats`, for a known topic. */
  async stats(topic: string): Promise<TopicStats> {
    await this.context.ensureInit(topic, 'none');
    const { layouts, reads } = this.context;
    const slots = await Promise.all(layouts.slotRefs(topic).map((ref) => reads.stats(ref)));
    const totals: TopicStats = { topic, pending: 0, firing: 0, dead: 0, oldestOverdueMs: 0, paused: false };
    for (const slot of slots) {
      if (typeof slot.pausedAt === 'number') totals.paused = true;
      totals.pending += slot.pending;
      totals.firing += slot.firing;
      totals.dead += slot.dead;
      if (slot.oldestOverdueDueAt !== null) totals.oldestOverdueMs = Math.max(totals.oldestOverdueMs, slot.now - slot.oldestOverdueDueAt);
    }
    return totals;
  }

  /** `DurableTimeouts.slotStats`, for a known topic. */
  async slotStats(topic: string): Promise<TopicSlotStats[]> {
    await this.context.ensureInit(topic, 'none');
    const { layouts, reads } = this.context;
    const slots = await Promise.all(layouts.slotRefs(topic).map((ref) => reads.stats(ref)));
    return slots.map((stats, slot) => ({
      slot,
      pending: stats.pending,
      firing: stats.firing,
      dead: stats.dead,
      oldestOverdueMs: stats.oldestOverdueDueAt === null ? 0 : Math.max(0, stats.now - stats.oldestOverdueDueAt),
      paused: typeof stats.pausedAt === 'number',
    }));
  }

  /** `DurableTimeouts.listPending`, for a known topic. */
  async listPending(topic: string, options: PageOptions): Promise<TimeoutInfo<unknown>[]> {
    const { offset, limit } = pageOf('listPending', options);
    await this.context.ensureInit(topic, 'none');
    const { layouts, reads } = this.context;
    // Every slot is sorted by due time; the first offset + limit of each are enough to merge.
    const perSlot = await Promise.all(layouts.slotRefs(topic).map((ref) => reads.listPending(ref, 0, offset + limit)));
    const page = mergedPage(perSlot, (entry) => entry.dueAt, offset, limit);
    const found = await Promise.all(page.map((entry) => this.read(topic, entry.id)));
    return found.filter((info): info is TimeoutInfo<unknown> => info !== null && info.state !== 'dead');
  }

  /** `DurableTimeouts.listDead`, for a known topic. */
  async listDead(topic: string, options: PageOptions): Promise<DeadLetter<unknown>[]> {
    const { offset, limit } = pageOf('listDead', options);
    await this.context.ensureInit(topic, 'none');
    const { layouts, reads } = this.context;
    // Every slot is sorted by time of death; the first offset + limit of each are enough to merge.
    const perSlot = await Promise.all(layouts.slotRefs(topic).map((ref) => reads.listDead(ref, 0, offset + limit)));
    return mergedPage(perSlot, (letter) => letter.deadAt, offset, limit).map(
      (letter): DeadLetter<unknown> => ({
        topic,
        id: letter.id,
        attempts: letter.attempts,
        lastError: letter.lastError,
        deadAt: letter.deadAt,
        scheduledAt: letter.scheduledAt,
        ...this.payloadOf(topic, letter.payload),
      }),
    );
  }

  /** `DurableTimeouts.replayDead`, for a known topic. */
  replayDead(topic: string, ids: readonly string[] | undefined): Promise<number> {
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.context.reads.replayDead(ref, slotIds));
  }

  /** `DurableTimeouts.purgeDead`, for a known topic. */
  purgeDead(topic: string, ids: readonly string[] | undefined): Promise<number> {
    return this.onDeadLetters(topic, ids, (ref, slotIds) => this.context.reads.purgeDead(ref, slotIds));
  }

  /**
   * A stored payload as the handler sees it (carried text left out); text that is not JSON (edited
   * by hand) reads as null; one the topic's codec cannot decode reads as null with `payloadError`.
   */
  private payloadOf(topic: string, text: string): { payload: unknown; payloadError?: string } {
    const read = readPayloadText(splitCarried(text).payload, this.codecOf(topic));
    if (read.ok) return { payload: read.value };
    return read.encoded ? { payload: null, payloadError: read.reason } : { payload: null };
  }

  /** Runs a dead-letter action on every slot (no `ids`), or on the slots of the given ids, following slot moves. */
  private async onDeadLetters(
    topic: string,
    ids: readonly string[] | undefined,
    action: (ref: SlotRef, ids?: readonly string[]) => Promise<number>,
  ): Promise<number> {
    if (ids !== undefined && !Array.isArray(ids)) {
      throw new InvalidOptionsError(errorMessages.invalidOption('ids', ids, 'use an array of timeout ids, or omit it for all'));
    }
    ids?.forEach((id) => assertTimeoutId(id));
    await this.context.ensureInit(topic, 'none');
    const { layouts } = this.context;
    if (ids === undefined) return sum(await Promise.all(layouts.slotRefs(topic).map((ref) => layouts.callOnSlot(topic, () => action(ref)))));
    const byRoute = layouts.groupByRoute(topic, new Set(ids), (id) => id);
    const counts = [...byRoute].map(([ref, slotIds]) =>
      action(ref, slotIds).catch((error: unknown) => {
        if (!isSlotRefusal(error)) throw error;
        // The slot moved or is moving (a slot migration): each id goes where it lives now.
        return Promise.all(slotIds.map((id) => layouts.callById(topic, id, (routed) => action(routed, [id])))).then(sum);
      }),
    );
    return sum(await Promise.all(counts));
  }
}


/** Validates the `offset` and `limit` of a listing (`listDead`, `listPending`). */
function pageOf(operation: string, options: PageOptions): { offset: number; limit: number } {
  const offset = integerIn(`${operation} offset`, options.offset, 0, 0, MAX_PAGE_DEPTH);
  const limit = integerIn(`${operation} limit`, options.limit, 100, 1, MAX_PAGE);
  if (offset + limit > MAX_PAGE_DEPTH) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`${operation} offset + limit`, offset + limit, `use at most ${MAX_PAGE_DEPTH}`));
  }
  return { offset, limit };
}

/** One page of the slots' lists merged by time, ties by id (each list is sorted that way already). */
function mergedPage<T extends { id: string }>(perSlot: readonly T[][], timeOf: (entry: T) => number, offset: number, limit: number): T[] {
  return perSlot
    .flat()
    .sort((a, b) => timeOf(a) - timeOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(offset, offset + limit);
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}
