import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from './connection-options.js';
import { settledWithin } from '../support/settled-within.js';
import { parseConnectionUrl } from './connection-url.js';
import { failoverReply } from './failover.js';
import { InvalidConnectionError } from './invalid-connection.error.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { assertSentinelOptions, isSentinelOptions, reconnectOnReadonly, SENTINEL_DEFAULTS, sentinelReconnectDelay } from './sentinel-connection.js';

/** An ioredis connection to one server or to a cluster. */
export type RedisClient = Redis | Cluster;

/** A connection and whether the store opened it (and so must close it). */
export interface OpenedConnection {
  client: RedisClient;
  owned: boolean;
}

/** How long a closed connection's socket may take to end cleanly before it is destroyed. */
export const CLOSE_GRACE_MS = 500;

/** Reconnect delay: grows to 2 s and never gives up, so workers resume by themselves after an outage. */
export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 6), 2_000);
}

/**
 * Defaults of the connections the store opens: connect on first use (constructing opens no
 * socket), reconnect forever, never drop a queued worker command after N retries (interactive
 * calls get their own deadline), pipeline concurrent calls automatically. The caller's options
 * win over these. A new object each time: the READONLY reconnect keeps its backoff per connection.
 */
function ownedDefaults(readonlyDelay: (attempt: number) => number = reconnectDelay): RedisOptions {
  return {
    lazyConnect: true,
    retryStrategy: reconnectDelay,
    maxRetriesPerRequest: null,
    enableAutoPipelining: true,
    // ioredis keeps a timer of this length after a disconnect made while it waits to reconnect; the
    // default (2 s) would keep a closing process alive that long.
    disconnectTimeout: CLOSE_GRACE_MS,
    // A server demoted by a failover answers READONLY: reconnect, backing off while it keeps
    // answering so (see sentinel-connection.ts).
    reconnectOnError: reconnectOnReadonly(readonlyDelay),
  };
}

/** True for an ioredis `Redis` or `Cluster` instance (duck-typed: several ioredis copies may coexist). */
export function isRedisClient(value: unknown): value is RedisClient {
  if (value instanceof Redis || value instanceof Cluster) return true;
  const candidate = value as Partial<Redis> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.duplicate === 'function' &&
    typeof candidate.defineCommand === 'function' &&
    typeof candidate.status === 'string'
  );
}

/** True when the client talks to a Redis Cluster. */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster || (client as { isCluster?: boolean }).isCluster === true;
}

/** True for a Cluster connection or one that finds its primary through Sentinel: nodes fail over there. */
export function isReplicated(client: RedisClient): boolean {
  if (isCluster(client)) return true;
  const sentinels = (client.options as { sentinels?: unknown } | undefined)?.sentinels;
  return Array.isArray(sentinels) && sentinels.length > 0;
}

/**
 * Opens (or adopts) the connection described by `connection`. A given instance is used as it is
 * and never closed by the store; everything else is opened here with `ownedDefaults()`.
 */
export function openConnection(connection: ConnectionOptions | undefined): OpenedConnection {
  if (connection === undefined) return { client: new Redis(ownedDefaults()), owned: true };
  if (typeof connection === 'string') {
    const parsed = parseConnectionUrl(connection);
    if (typeof parsed !== 'string') return openConnection(parsed);
    return { client: new Redis(parsed, ownedDefaults()), owned: true };
  }
  if (isRedisClient(connection)) return { client: connection, owned: false };
  if ('cluster' in connection && Array.isArray(connection.cluster)) {
    const options: ClusterOptions = connection.options ?? {};
    const client = new Cluster(connection.cluster, {
      lazyConnect: true,
      clusterRetryStrategy: reconnectDelay,
      enableAutoPipelining: true,
      ...options,
      redisOptions: { maxRetriesPerRequest: null, disconnectTimeout: CLOSE_GRACE_MS, ...options.redisOptions },
    });
    return { client, owned: true };
  }
  const options = connection as RedisOptions;
  if (isSentinelOptions(options)) {
    assertSentinelOptions(options);
    return { client: new Redis({ ...ownedDefaults(sentinelReconnectDelay), ...SENTINEL_DEFAULTS, ...options }), owned: true };
  }
  return { client: new Redis({ ...ownedDefaults(), ...options }), owned: true };
}

/** `host:port` of a one-server connection, for messages. */
function serverOf(client: Redis): string {
  const { host, port } = client.options as { host?: string; port?: number };
  return `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/**
 * The error to throw when a one-server connection reached a node of a Redis Cluster: a MOVED or
 * ASK reply can only come from one (a Cluster connection follows them instead). Undefined for any
 * other error, or on a Cluster connection.
 */
export function clusterNodeError(client: RedisClient, error: unknown): InvalidConnectionError | undefined {
  if (isCluster(client)) return undefined;
  const reply = failoverReply(error);
  if (reply !== 'MOVED' && reply !== 'ASK') return undefined;
  const node = serverOf(client);
  return new InvalidConnectionError(redisStoreMessages.clusterNode(node, `it answered ${(error as Error).message}`), node, 'cluster-node');
}

/**
 * Throws `InvalidConnectionError` when a one-server connection is to a node of a Redis Cluster
 * (`cluster_enabled:1` in INFO), which would answer MOVED for most keys. A user denied INFO by its
 * ACL is not checked here (the first MOVED reply tells then).
 */
export async function assertNotClusterNode(client: RedisClient, info: (section: string) => Promise<string>): Promise<void> {
  if (isCluster(client)) return;
  let section: string;
  try {
    section = await info('cluster');
  } catch (error) {
    if (error instanceof Error && /NOPERM/.test(error.message)) return;
    throw error;
  }
  if (/^cluster_enabled:1\s*$/m.test(section)) {
    const node = serverOf(client);
    throw new InvalidConnectionError(redisStoreMessages.clusterNode(node, 'INFO says cluster_enabled:1'), node, 'cluster-node');
  }
}

/**
 * Closes a connection the store opened: a clean QUIT when the connection is ready and Redis
 * answers within `timeoutMs`, else at once. Never a QUIT on a connection that is not ready:
 * ioredis would queue it behind the commands waiting for the connection, and wait for ever.
 */
export async function closeConnection(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready' || timeoutMs <= 0) {
    client.disconnect();
    return;
  }
  try {
    await settledWithin(client.quit(), timeoutMs);
  } finally {
    client.disconnect();
  }
}
