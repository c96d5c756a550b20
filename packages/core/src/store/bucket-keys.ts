import { FEW_BUCKETS } from '../commands/index.js';
import { bucketOf } from './slot-of.js';

/** The data-bucket keys a script call on some ids passes, and where each id finds its own. */
export interface BucketKeys {
  /** Whether the call uses the script's `few` registration (exactly `FEW_BUCKETS` bucket keys). */
  few: boolean;
  /** The bucket keys, to pass after the script's fixed keys. */
  keys: string[];
  /** The distinct buckets of the ids. */
  distinct: number[];
  /** The 1-based index in KEYS of the bucket of the `i`-th id (scripts do not hash ids again). */
  keyIndex(i: number): number;
}

/**
 * The bucket keys of a call on `ids` whose script takes `fixedKeys` keys first: the ids' own
 * buckets (padded) when there are at most `FEW_BUCKETS` of them, else every bucket of the slot (a
 * fixed key count either way, see commands/index.ts).
 */
export function bucketKeys(ids: readonly string[], slotBuckets: readonly string[], fixedKeys: number): BucketKeys {
  const buckets = ids.map((id) => bucketOf(id));
  const distinct = [...new Set(buckets)];
  const chosen = distinct.length <= FEW_BUCKETS ? padBuckets(distinct) : undefined;
  return {
    few: chosen !== undefined,
    keys: chosen ? chosen.map((bucket) => slotBuckets[bucket]!) : [...slotBuckets],
    distinct,
    keyIndex: (i) => fixedKeys + 1 + (chosen ? chosen.indexOf(buckets[i]!) : buckets[i]!),
  };
}

/** `FEW_BUCKETS` bucket numbers: the given ones (at most that many), then repeats of the first (bucket 0 when none). */
export function padBuckets(buckets: readonly number[]): number[] {
  const padded = buckets.slice(0, FEW_BUCKETS);
  const filler = padded[0] ?? 0;
  while (padded.length < FEW_BUCKETS) padded.push(filler);
  return padded;
}
