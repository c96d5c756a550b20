import type { StoreScheduleEntry } from '../store/timeout-store.js';
import type { CancelManyResult, CancelResult, ResolvedTopicOptions, ScheduleManyResult, ScheduleOutcome, ScheduleResult } from '../types.js';
import { InvalidDelayError } from '../errors/invalid-delay.error.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { DurableTimeoutError } from '../errors/durable-timeout.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { serializePayload } from '../validation/payload.js';
import { assertTimeoutId } from '../validation/timeout-id.js';
import { validateTiming } from '../validation/timing.js';
import { validateIfExists } from '../validation/if-exists.js';
import { assertBulkItems } from '../validation/bulk-items.js';
import { runPerSlot } from './bulk-calls.js';
import { withCarried } from './carried-context.js';
import type { EngineContext } from './engine-context.js';

/** What a schedule needs of its topic's settings: the payload limit and the codec. */
export type PayloadSettings = Pick<ResolvedTopicOptions, 'maxPayloadBytes' | 'codec'>;

/**
 * The engine's writes by id: `schedule`, `scheduleMany`, `cancel`, `cancelMany`. The engine checks
 * that it is usable and that the topic exists, then hands the call here: validation of every item
 * (bad input throws, or fails its item, before anything is sent), routing to the slot, and the
 * `scheduled` / `cancelled` events.
 */
export class TopicWrites {
  constructor(private readonly context: EngineContext) {}

  /** `DurableTimeouts.schedule`, for a known topic. */
  async schedule(topic: string, settings: PayloadSettings, id: string, options: unknown): Promise<ScheduleResult> {
    const entry = this.scheduleEntry(topic, settings, id, options);
    await this.context.ensureInit(topic, 'record');
    const { layouts } = this.context;
    const { outcome, dueAt } = await layouts.callById(topic, id, (ref) => this.context.writes.schedule(ref, id, entry));
    this.emitScheduled(topic, id, dueAt, outcome);
    return { topic, id, dueAt, outcome };
  }

  /** `DurableTimeouts.scheduleMany`, for a known topic. */
  async scheduleMany(topic: string, settings: PayloadSettings, items: readonly unknown[]): Promise<ScheduleManyResult[]> {
    assertBulkItems('scheduleMany', items);
    const results: ScheduleManyResult[] = new Array(items.length);
    const valid: { id: string; entry: StoreScheduleEntry; index: number }[] = [];
    items.forEach((item, index) => {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
      try {
        if (typeof item !== 'object' || item === null) throw new InvalidOptionsError(errorMessages.bulkItemNotObject('scheduleMany', index));
        assertTimeoutId(id);
        valid.push({ id: id as string, entry: this.scheduleEntry(topic, settings, id as string, item), index });
      } catch (error) {
        if (!(error instanceof DurableTimeoutError)) throw error;
        results[index] = { ok: false, topic, id: typeof id === 'string' ? id : String(id), error };
      }
    });
    if (valid.length === 0) return results;
    await this.context.ensureInit(topic, 'record');
    const { layouts } = this.context;
    const outcomes = await runPerSlot(
      layouts,
      topic,
      valid,
      (ref, chosen) => this.context.writes.scheduleMany(ref, chosen),
      (ref, item) => this.context.writes.schedule(ref, item.id, item.entry),
    );
    valid.forEach(({ id, index }, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        results[index] = { ok: false, topic, id, error: outcome.error };
        return;
      }
      this.emitScheduled(topic, id, outcome.value.dueAt, outcome.value.outcome);
      results[index] = { ok: true, topic, id, dueAt: outcome.value.dueAt, outcome: outcome.value.outcome };
    });
    return results;
  }

  /** `DurableTimeouts.cancel`, for a known topic. */
  async cancel(topic: string, id: string): Promise<CancelResult> {
    assertTimeoutId(id);
    await this.context.ensureInit(topic, 'await');
    const { layouts } = this.context;
    const result = await layouts.callById(topic, id, (ref) => this.context.writes.cancel(ref, id));
    if (result !== 'not_found') this.context.events.emit('cancelled', { topic, id, firing: result === 'firing' });
    return result;
  }

  /** `DurableTimeouts.cancelMany`, for a known topic. */
  async cancelMany(topic: string, ids: readonly string[]): Promise<CancelManyResult[]> {
    assertBulkItems('cancelMany', ids);
    const results: CancelManyResult[] = new Array(ids.length);
    const valid: { id: string; index: number }[] = [];
    ids.forEach((id, index) => {
      try {
        assertTimeoutId(id);
        valid.push({ id, index });
      } catch (error) {
        if (!(error instanceof DurableTimeoutError)) throw error;
        results[index] = { ok: false, topic, id: String(id), error };
      }
    });
    if (valid.length === 0) return results;
    await this.context.ensureInit(topic, 'await');
    const { layouts } = this.context;
    const outcomes = await runPerSlot(
      layouts,
      topic,
      valid,
      (ref, chosen) => this.context.writes.cancelMany(ref, chosen.map(({ id }) => id)),
      (ref, item) => this.context.writes.cancel(ref, item.id),
    );
    valid.forEach(({ id, index }, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        results[index] = { ok: false, topic, id, error: outcome.error };
        return;
      }
      if (outcome.value !== 'not_found') this.context.events.emit('cancelled', { topic, id, firing: outcome.value === 'firing' });
      results[index] = { ok: true, topic, id, result: outcome.value };
    });
    return results;
  }

  /** Validates the options of one schedule and builds what the store stores (bad input throws a typed error). */
  private scheduleEntry(topic: string, settings: PayloadSettings, id: unknown, options: unknown): StoreScheduleEntry {
    assertTimeoutId(id);
    if (typeof options !== 'object' || options === null) throw new InvalidDelayError(errorMessages.timingMissing());
    const timing = validateTiming(options as { delayMs?: unknown; at?: unknown }, Date.now());
    const ifExists = validateIfExists((options as { ifExists?: unknown }).ifExists);
    const given = 'payload' in options ? (options as { payload?: unknown }).payload : null;
    const serialized = serializePayload(given, topic, settings.maxPayloadBytes, settings.codec);
    const { interceptors } = this.context;
    const payload = interceptors.length === 0 ? serialized : withCarried(serialized, this.carriedFor(topic, id as string));
    const entry: StoreScheduleEntry = timing.at === undefined ? { delayMs: timing.delayMs, payload } : { at: timing.at, payload };
    if (ifExists !== undefined) entry.ifExists = ifExists;
    return entry;
  }

  /** The text the interceptors keep with a timeout being scheduled (the last one that gives some wins). */
  private carriedFor(topic: string, id: string): string | undefined {
    let carried: string | undefined;
    for (const { scheduling } of this.context.interceptors) carried = scheduling?.(topic, id) ?? carried;
    return carried;
  }

  /** The `scheduled` event, for a call that stored something (not for a kept one). */
  private emitScheduled(topic: string, id: string, dueAt: number, outcome: ScheduleOutcome): void {
    const { events } = this.context;
    if (outcome !== 'kept' && outcome !== 'kept_firing' && events.has('scheduled')) events.emit('scheduled', { topic, id, dueAt, outcome });
  }
}

