import { bucketOf, DATA_BUCKETS } from './slot-of.js';

/** The Redis keys of one slot of one topic. Every key carries the slot's hash tag. */
export interface SlotKeys {
  /** ZSET id -> due time (ms, Redis clock) of pending timeouts. */
  due: string;
  /** ZSET id -> lease expiry of firing (claimed) timeouts. */
  lease: string;
  /** ZSET id -> time of death of dead letters. */
  dead: string;
  /** Counter the fencing tokens of the slot are drawn from. */
  seq: string;
  /** The slot's layout marker: set only by a change of the topic's slot count. */
  layout: string;
  /** HASH id -> fencing token of deliveries a change of slot count moved to another slot. */
  fwd: string;
  /**
   * HASH, the slot's flow control: field `at`, the Redis time the slot was paused (ms), only while
   * its topic is paused; `tokens` and `ts`, the token bucket of a rate-limited topic.
   */
  paused: string;
  /** The data buckets (HASH id -> packed meta and payload), index = `bucketOf(id)`. */
  buckets: readonly string[];
}

/**
 * Builds every Redis key and channel name of the store, and nothing else does: the Lua scripts
 * receive keys as KEYS and never build one. Layout (prefix `dt`, topic `payment`, slot 3):
 *
 * - `dt:{payment:3}:due`, `dt:{payment:3}:lease`, `dt:{payment:3}:dead` (ZSETs),
 * - `dt:{payment:3}:seq` (string counter),
 * - `dt:{payment:3}:layout` (string) and `dt:{payment:3}:fwd` (HASH), written only when the
 *   topic's slot count changes,
 * - `dt:{payment:3}:paused` (HASH: `at` while the topic is paused; `tokens`, `ts` of a rate limit),
 * - `dt:{payment:3}:d:0` ... `dt:{payment:3}:d:127` (HASH data buckets),
 * - `dt:topics` (HASH topic -> slot count): the slot count each topic was first used with,
 * - channel `dt:wake:payment` (wake-up notifications of the topic).
 *
 * Ids never appear in key names, so `{`, `}` and `:` inside an id cannot disturb the hash tag.
 */
export class TimeoutKeys {
  private readonly cache = new Map<string, SlotKeys>();

  /** @param prefix first segment of every key (e.g. `dt`); must not contain `{` or `}`. */
  constructor(readonly prefix: string) {}

  /** All keys of one slot (memoised: the engine asks for the same slots over and over). */
  slot(topic: string, slot: number): SlotKeys {
    const cacheKey = `${topic}\u0000${slot}`;
    let keys = this.cache.get(cacheKey);
    if (!keys) {
      const base = `${this.prefix}:{${topic}:${slot}}`;
      const buckets: string[] = [];
      for (let bucket = 0; bucket < DATA_BUCKETS; bucket++) buckets.push(`${base}:d:${bucket}`);
      keys = {
        due: `${base}:due`,
        lease: `${base}:lease`,
        dead: `${base}:dead`,
        seq: `${base}:seq`,
        layout: `${base}:layout`,
        fwd: `${base}:fwd`,
        paused: `${base}:paused`,
        buckets,
      };
      this.cache.set(cacheKey, keys);
    }
    return keys;
  }

  /** The data bucket key holding `id` in its slot. */
  dataKey(topic: string, slot: number, id: string): string {
    return this.slot(topic, slot).buckets[bucketOf(id)]!;
  }

  /** HASH topic -> slot count (or `<from>><to>` during a migration): the registry of topic layouts. */
  get topics(): string {
    return `${this.prefix}:topics`;
  }

  /** The hash tag shared by every key of a slot, e.g. `{payment:3}`. */
  hashTag(topic: string, slot: number): string {
    return `{${topic}:${slot}}`;
  }

  /** Pub/sub channel of a topic's wake-up notifications. */
  wakeChannel(topic: string): string {
    return `${this.prefix}:wake:${topic}`;
  }

  /** The topic of a wake-up channel, or undefined when the channel is not one of this prefix. */
  topicOfChannel(channel: string): string | undefined {
    const head = `${this.prefix}:wake:`;
    return channel.startsWith(head) ? channel.slice(head.length) : undefined;
  }
}
