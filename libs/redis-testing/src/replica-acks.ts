import type { Redis } from 'ioredis';

/**
 * Resolves once a write on `primary` is acknowledged by `replicas` of its replicas (`WAIT`): then
 * the primary streams its writes to them and counts their acks, which is what a test of `WAIT`
 * (the `durability` option) or of replication needs before it starts.
 *
 * A replica's own `master_link_status:up` is not enough. After a full sync the primary holds the
 * replica's command stream until it takes the replica's first `REPLCONF ACK` (Redis 7), and the
 * ack sent at the end of the sync can reach it before it noticed the end of its RDB child: then the
 * stream starts with the replica's next periodic ack, up to a second later. Meanwhile the replica
 * says it is linked and every `WAIT` counts it out.
 *
 * Writes `key` (a key the primary serves; deleted afterwards) once and waits on the same
 * connection, so that a replica behind a lagging link counts once that write reaches it.
 */
export async function waitForReplicaAcks(primary: Redis, key: string, replicas: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  try {
    await primary.set(key, 'replication probe');
    for (;;) {
      // WAIT blocks up to its own timeout, so the loop needs no sleep of its own.
      const acked = await primary.wait(replicas, 100);
      if (acked >= replicas) return;
      if (Date.now() > deadline) {
        throw new Error(`Only ${acked} of ${replicas} replica(s) of ${primary.options.host}:${primary.options.port} acknowledged a write within ${timeoutMs} ms.`);
      }
    }
  } finally {
    await primary.del(key).catch(() => undefined);
  }
}
