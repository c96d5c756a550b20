import type { TimeoutLogger } from '../types.js';
import type { RedisCalls } from './redis-calls.js';
import { isCluster, type RedisClient } from './redis-connection.js';
import { redisStoreMessages } from './redis-store.messages.js';

/**
 * Reads INFO of every master and warns (advice, not a requirement) when one keeps no append-only
 * file or runs an `allkeys-*` eviction policy; at most one warning of each kind. A user denied
 * INFO by its ACL gets no advice and no error.
 */
export async function adviseOnPersistence(client: RedisClient, calls: RedisCalls, logger: TimeoutLogger | null): Promise<void> {
  const nodes: RedisClient[] = isCluster(client) ? client.nodes('master') : [client];
  let warnedAof = false;
  let warnedEviction = false;
  for (const node of nodes) {
    const options = node.options as { host?: string; port?: number };
    const name = `${options.host ?? 'server'}:${options.port ?? ''}`;
    let persistence: string;
    let memory: string;
    try {
      persistence = await calls.interactive('init', () => node.info('persistence'));
      memory = await calls.interactive('init', () => node.info('memory'));
    } catch (error) {
      // A least-privilege ACL user may be denied INFO: the check is advice, not a requirement.
      if (error instanceof Error && /NOPERM/.test(error.message)) return;
      throw error;
    }
    if (!warnedAof && /^aof_enabled:0\s*$/m.test(persistence)) {
      warnedAof = true;
      logger?.warn(redisStoreMessages.noPersistence(name));
    }
    const policy = /^maxmemory_policy:(\S+)/m.exec(memory)?.[1];
    if (!warnedEviction && policy !== undefined && policy.startsWith('allkeys-')) {
      warnedEviction = true;
      logger?.warn(redisStoreMessages.evictingPolicy(name, policy));
    }
  }
}
