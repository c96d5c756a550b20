import type { CopiedEntry, ExportedEntries, MovedEntry, SlotMarker, LayoutMigration, SlotRef, TopicLayout } from './timeout-store.js';
import type { RedisCalls } from './redis-calls.js';
import type { TimeoutKeys } from './timeout-keys.js';
import { count, entryArgs, flags, mapCode, parseLayout, STATES, unexpected } from './redis-replies.js';

/**
 * The Redis store's calls for a change of a topic's slot count (docs/REDIS-LAYOUT.md, "Changing a
 * topic's slot count"): the topics registry (one hash of every topic's recorded layout), the layout
 * marker of each slot, and the copying of stored entries from one slot to another with their
 * fencing counter. Each is one script on one hash tag; the method docs are on `LayoutMigration`.
 */
export class RedisSlotMigration implements LayoutMigration {
  constructor(
    private readonly keys: TimeoutKeys,
    private readonly calls: RedisCalls,
  ) {}

  async readLayout(topic: string): Promise<TopicLayout | null> {
    return this.layoutCall('read', topic);
  }

  async claimLayout(topic: string, slots: number): Promise<TopicLayout> {
    return (await this.layoutCall('claim', topic, slots))!;
  }

  async beginMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    return (await this.layoutCall('begin', topic, from, to))!;
  }

  async finishMigration(topic: string, from: number, to: number): Promise<TopicLayout> {
    return (await this.layoutCall('finish', topic, from, to))!;
  }

  private async layoutCall(operation: string, topic: string, ...operands: number[]): Promise<TopicLayout | null> {
    const reply = await this.calls.script('layout', 'layoutRegistry', [this.keys.topics], [operation, topic, ...operands]);
    if (reply === null) return null;
    const layout = parseLayout(reply);
    if (!layout) throw unexpected('layoutRegistry', reply);
    return layout;
  }

  async markSlot(slot: SlotRef, marker: SlotMarker | null): Promise<void> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const value = marker === null ? '' : marker.movingBucket === undefined ? String(marker.slots) : `move:${marker.slots}:${marker.movingBucket}`;
    await this.calls.script('markSlot', 'layoutMark', [keys.layout], [value, this.keys.wakeChannel(slot.topic)]);
  }

  async bucketIds(slot: SlotRef, bucket: number): Promise<string[]> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('bucketIds', 'migrateScan', [keys.buckets[bucket]!], []);
    if (!Array.isArray(reply)) throw unexpected('migrateScan', reply);
    return reply.map(String);
  }

  async exportEntries(slot: SlotRef, ids: readonly string[]): Promise<ExportedEntries> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('exportEntries', 'migrateExport', [keys.due, keys.lease, keys.dead, keys.seq, ...keys.buckets], ids);
    if (!Array.isArray(reply) || reply.length % 4 !== 1) throw unexpected('migrateExport', reply);
    const entries: MovedEntry[] = [];
    for (let i = 1; i < reply.length; i += 4) {
      entries.push({ id: String(reply[i]), state: mapCode(STATES, reply[i + 1], 'migrateExport'), score: Number(reply[i + 2]), value: String(reply[i + 3]) });
    }
    return { counter: Number(reply[0]) || 0, entries };
  }

  async importEntries(slot: SlotRef, entries: readonly MovedEntry[], counter: number): Promise<boolean[]> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('importEntries', 'migrateImport', [keys.due, keys.lease, keys.dead, keys.seq, ...keys.buckets], [
      this.keys.wakeChannel(slot.topic),
      slot.slot,
      counter,
      ...entryArgs(entries),
    ]);
    return flags(reply, entries.length, 'migrateImport');
  }

  async dropEntries(slot: SlotRef, entries: readonly CopiedEntry[]): Promise<boolean[]> {
    const keys = this.keys.slot(slot.topic, slot.slot);
    const args = entries.flatMap((entry) => [...entryArgs([entry]), entry.target]);
    const reply = await this.calls.script('dropEntries', 'migrateDrop', [keys.due, keys.lease, keys.dead, keys.fwd, ...keys.buckets], args);
    return flags(reply, entries.length, 'migrateDrop');
  }

  async unimportEntries(slot: SlotRef, entries: readonly MovedEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const keys = this.keys.slot(slot.topic, slot.slot);
    const reply = await this.calls.script('unimportEntries', 'migrateUnimport', [keys.due, keys.lease, keys.dead, ...keys.buckets], entryArgs(entries));
    return count(reply, 'migrateUnimport');
  }
}
