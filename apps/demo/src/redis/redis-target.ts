import { HarnessError, RedisServer } from '@durable-timeout/redis-testing';
import { Redis } from 'ioredis';
import { DemoMessages, redactUrl } from '../demo.messages.js';

/** The Redis the orders instances share during the demo. */
export interface RedisTarget {
  /** URL handed to the orders instances as REDIS_URL. */
  url: string;
  /** One line for the reader (never a password). */
  description: string;
  /** Deletes every key under `prefix` (the demo's own keys on a Redis it does not own). */
  deleteKeys(prefix: string): Promise<number>;
  /** Stops what the demo started; closes what it opened. */
  close(): Promise<void>;
}

const SCAN_COUNT = 500;

/**
 * With `redisUrl`: that server, checked with PING. Without: a throwaway `redis-server` with the
 * append-only file on (fsync every second), the production setting, in a temporary folder.
 */
export async function openRedisTarget(redisUrl: string | undefined): Promise<RedisTarget> {
  if (redisUrl) return openExisting(redisUrl);
  const server = await RedisServer.start({ appendonly: true, appendfsync: 'everysec' });
  const client = server.client({ lazyConnect: false });
  return {
    url: server.url,
    description: `a throwaway redis-server with AOF (appendfsync everysec) on ${server.host}:${server.port}`,
    deleteKeys: (prefix) => deleteByPrefix(client, prefix),
    close: () => server.stop(),
  };
}

async function openExisting(url: string): Promise<RedisTarget> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000 });
  client.on('error', () => {
    // reported through the PING below or the calls that fail
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new HarnessError('environment', 
      DemoMessages.redisUnreachable(redactUrl(url), error instanceof Error ? error.message : String(error)),
    );
  }
  return {
    url,
    description: `REDIS_URL ${redactUrl(url)} (keys under the demo's own prefixes, deleted at the end)`,
    deleteKeys: (prefix) => deleteByPrefix(client, prefix),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

async function deleteByPrefix(client: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [nextCursor, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', SCAN_COUNT);
    cursor = nextCursor;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}
