import type { Redis } from 'ioredis';
import type { ShardSpread } from './report.js';

/** Hash slot ranges of a `CLUSTER SLOTS` reply: [start, end, [host, port, ...], ...replicas]. */
type SlotsReply = [number, number, [string, number, ...unknown[]], ...unknown[]][];

/** The shard (`host:port` of its master) owning hash slot `hashSlot`, from a `CLUSTER SLOTS` reply. */
export function ownerOf(slots: SlotsReply, hashSlot: number): string | undefined {
  const range = slots.find(([start, end]) => hashSlot >= start && hashSlot <= end);
  return range ? `${range[2][0]}:${range[2][1]}` : undefined;
}

/**
 * How the topic's slots and their pending timeouts spread over the shards. Uses the key layout of
 * DESIGN.md: every key of slot `s` of topic `t` carries the hash tag `{t:s}`, its due set is
 * `<prefix>:{t:s}:due`.
 */
export async function clusterSpread(nodes: readonly Redis[], prefix: string, topic: string, slots: number): Promise<ShardSpread[]> {
  const layout = (await nodes[0]!.call('CLUSTER', 'SLOTS')) as SlotsReply;
  const shards = new Map<string, ShardSpread>();
  nodes.forEach((node, i) => {
    shards.set(`${node.options.host}:${node.options.port}`, { node: `master ${i + 1}`, slots: 0, timeouts: 0 });
  });
  for (let slot = 0; slot < slots; slot++) {
    const tag = `{${topic}:${slot}}`;
    const hashSlot = Number(await nodes[0]!.call('CLUSTER', 'KEYSLOT', tag));
    const owner = ownerOf(layout, hashSlot);
    const shard = owner ? shards.get(owner) : undefined;
    const client = nodes.find((node) => `${node.options.host}:${node.options.port}` === owner);
    if (!shard || !client) continue;
    shard.slots++;
    shard.timeouts += await client.zcard(`${prefix}:${tag}:due`);
  }
  return [...shards.values()];
}
