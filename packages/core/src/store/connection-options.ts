import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/**
 * How the engine reaches Redis.
 *
 * - a URL: `redis://user:pass@host:6379/0` for one server, `redis+cluster://user:pass@host:port,host:port`
 *   for a Redis Cluster, `redis+sentinel://user:pass@host:26379,host:26379/mymaster` for Sentinel,
 *   each with `rediss` instead of `redis` for TLS (see `parseConnectionUrl`; a URL it cannot read is
 *   an `InvalidConnectionError` naming the part that is wrong). A one-server URL pointed at a
 *   Cluster node is refused at start with `InvalidConnectionError`;
 * - ioredis options for one server (`host`, `port`, `username`, `password`, `tls`, ...);
 * - ioredis Sentinel options, `{ sentinels: [{ host, port }, ...], name: 'mymaster', ... }`: the
 *   primary is asked of the sentinels and followed across failovers (validated: a typed
 *   `InvalidStoreOptionError` names bad input);
 * - `{ cluster: [...startup nodes], options? }` for a Redis Cluster;
 * - an existing ioredis `Redis` or `Cluster` instance. The engine never closes an instance it was
 *   given (close only what you open); it duplicates it for the connections it needs of its own
 *   (the subscriber) and closes those duplicates.
 */
export type ConnectionOptions =
  | string
  | RedisOptions
  | Redis
  | Cluster
  | { cluster: ClusterNode[]; options?: ClusterOptions };
