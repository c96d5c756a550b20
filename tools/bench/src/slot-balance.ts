/** Hash slots of a Redis Cluster. */
export const CLUSTER_HASH_SLOTS = 16_384;

/** CRC16 (XMODEM: polynomial 0x1021, initial value 0), the checksum Redis Cluster hashes keys with. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster hash slot of slot `slot` of `topic`: its keys share the hash tag `{topic:slot}` (DESIGN.md). */
export function hashSlotOf(topic: string, slot: number): number {
  return crc16(`${topic}:${slot}`) % CLUSTER_HASH_SLOTS;
}

/**
 * How many of a topic's `slots` slots each of `masters` masters holds, when the masters own equal
 * contiguous ranges of hash slots in order (as `redis-cli --cluster create` assigns them).
 */
export function slotsPerMaster(topic: string, slots: number, masters: number): number[] {
  const counts = new Array<number>(masters).fill(0);
  for (let slot = 0; slot < slots; slot++) {
    const master = Math.min(masters - 1, Math.floor((hashSlotOf(topic, slot) * masters) / CLUSTER_HASH_SLOTS));
    counts[master]!++;
  }
  return counts;
}

/** The busiest master's share over the mean share (1 = perfectly even), for one topic. */
export function busiestMasterRatio(topic: string, slots: number, masters: number): number {
  return Math.max(...slotsPerMaster(topic, slots, masters)) / (slots / masters);
}
