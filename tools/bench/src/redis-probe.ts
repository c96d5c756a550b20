import type { Redis } from 'ioredis';
import { commandCalls, networkBytes, usedCpuSeconds, usedMemory } from './redis-info.js';

/** Admin connections to every Redis node of a target (one, or each cluster master), for figures. */
export class RedisProbe {
  constructor(private readonly nodes: readonly Redis[]) {}

  /** Empties every node. */
  async flushAll(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.flushall()));
  }

  /** `used_memory` summed over the nodes, bytes. */
  async usedMemory(): Promise<number> {
    const replies = await Promise.all(this.nodes.map((node) => node.info('memory')));
    return replies.reduce((sum, reply) => sum + usedMemory(reply), 0);
  }

  /** CPU seconds used by the nodes so far, summed. */
  async usedCpuSeconds(): Promise<number> {
    const replies = await Promise.all(this.nodes.map((node) => node.info('cpu')));
    return replies.reduce((sum, reply) => sum + usedCpuSeconds(reply), 0);
  }

  /** Bytes read from and written to clients so far, summed over the nodes. */
  async networkBytes(): Promise<{ input: number; output: number }> {
    const replies = await Promise.all(this.nodes.map((node) => node.info('stats')));
    return replies.map(networkBytes).reduce((sum, n) => ({ input: sum.input + n.input, output: sum.output + n.output }), { input: 0, output: 0 });
  }

  /** Calls per command summed over the nodes. */
  async commandCalls(): Promise<Map<string, number>> {
    const total = new Map<string, number>();
    for (const reply of await Promise.all(this.nodes.map((node) => node.info('commandstats')))) {
      for (const [command, calls] of commandCalls(reply)) total.set(command, (total.get(command) ?? 0) + calls);
    }
    return total;
  }
}
