/** The Redis key of the topic registry engines write on first use: a HASH topic -> slot count (`<from>><to>` while a migration moves it). */
export function topicRegistryKey(prefix: string): string {
  return `${prefix}:topics`;
}

/** What the registry holds, read and checked. */
export interface TopicRegistry {
  /** Topic -> slot count (the count it moves from, during a migration), for the entries that hold a valid count, sorted by topic name. */
  topics: Map<string, number>;
  /** Topic -> the slot count a running migration moves it to. */
  migrating: Map<string, number>;
  /** Entries whose value is not a power of two from 1 to 1024, as stored. */
  invalid: Map<string, string>;
}

/** Parses a registry HASH as HGETALL returns it. */
export function parseTopicRegistry(hash: Record<string, string>): TopicRegistry {
  const topics = new Map<string, number>();
  const migrating = new Map<string, number>();
  const invalid = new Map<string, string>();
  for (const topic of Object.keys(hash).sort()) {
    const value = hash[topic]!;
    const [current, target] = value.split('>');
    const slots = parseSlotCount(current!);
    const to = target === undefined ? undefined : parseSlotCount(target);
    if (slots === undefined || (target !== undefined && to === undefined)) {
      invalid.set(topic, value);
    } else {
      topics.set(topic, slots);
      if (to !== undefined) migrating.set(topic, to);
    }
  }
  return { topics, migrating, invalid };
}

/** A slot count written as a decimal string, or undefined when it is not a power of two from 1 to 1024. */
export function parseSlotCount(text: string): number | undefined {
  if (!/^\d{1,4}$/.test(text)) return undefined;
  const slots = Number(text);
  return slots >= 1 && slots <= 1024 && (slots & (slots - 1)) === 0 ? slots : undefined;
}
