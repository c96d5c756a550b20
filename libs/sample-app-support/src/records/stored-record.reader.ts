import { CorruptRecordError } from '../errors/corrupt-record.error.js';
import type { RecordTransition } from './record-change.js';

/**
 * Reads what Redis holds for one record defensively: a field of the wrong shape throws
 * `CorruptRecordError` naming the record, instead of leaking `undefined` or a half-parsed object
 * to the client.
 */
export class StoredRecordReader<TStatus extends string> {
  /**
   * @param kind what the record is, for the error message: `order`, `trip`.
   * @param statuses every status the record may hold.
   */
  constructor(
    readonly kind: string,
    readonly id: string,
    private readonly statuses: readonly TStatus[],
  ) {}

  /** The error for a field of the wrong shape. */
  corrupt(detail: string): CorruptRecordError {
    return new CorruptRecordError(this.kind, this.id, detail);
  }

  /** A status as stored. */
  status(value: unknown): TStatus {
    return this.oneOf(value, this.statuses, 'unknown status');
  }

  /** One of `options`, or `CorruptRecordError` with `detail`. */
  oneOf<T extends string>(value: unknown, options: readonly T[], detail: string): T {
    const found = options.find((option) => option === value);
    if (found === undefined) throw this.corrupt(detail);
    return found;
  }

  /** A time stored as ms since the epoch (a digit string or a number), as an ISO 8601 string. */
  time(value: unknown, field: string): string {
    const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) throw this.corrupt(`bad ${field}`);
    return new Date(ms).toISOString();
  }

  /** A JSON object stored as text. */
  object(text: string | undefined, field: string): Record<string, unknown> {
    let value: unknown;
    try {
      value = text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      throw this.corrupt(`${field} is not JSON`);
    }
    if (!isPlainObject(value)) throw this.corrupt(`${field} is not a JSON object`);
    return value;
  }

  /**
   * The transitions list: each line's known fields (`from`, `to`, `at`, `by` among `causes`, the
   * delivery's `fencingToken` and `attempt`, `instance`) plus the string fields named in `extras`;
   * anything else in a line is dropped.
   */
  transitions<TCause extends string, TExtra extends string = never>(
    lines: readonly string[],
    causes: readonly TCause[],
    extras: readonly TExtra[] = [],
  ): (RecordTransition<TStatus, TCause> & Partial<Record<TExtra, string>>)[] {
    return lines.map((text) => {
      const raw = this.object(text, 'transition');
      const transition: RecordTransition<TStatus, TCause> & Partial<Record<TExtra, string>> = {
        from: this.status(raw['from']),
        to: this.status(raw['to']),
        at: this.time(raw['at'], 'transition time'),
        by: this.oneOf(raw['by'], causes, 'unknown transition cause'),
      } as RecordTransition<TStatus, TCause> & Partial<Record<TExtra, string>>;
      for (const extra of extras) {
        const value = raw[extra];
        if (typeof value === 'string') Object.assign(transition, { [extra]: value });
      }
      if (isPositiveInteger(raw['fencingToken'])) transition.fencingToken = raw['fencingToken'];
      if (isPositiveInteger(raw['attempt'])) transition.attempt = raw['attempt'];
      if (typeof raw['instance'] === 'string') transition.instance = raw['instance'];
      return transition;
    });
  }
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is a whole number above zero. */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
