import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, type NamespacedRedis, type PartitionHost, type PartitionNet } from '@durable-timeout/redis-testing';

/** Sentinel timings of the split-brain runs: a primary is down after 1 s, a failover times out after 3 s. */
export const DOWN_AFTER_MS = 1_000;
export const FAILOVER_TIMEOUT_MS = 3_000;
const MASTER = 'mymaster';
const SENTINEL_PORT = 26379;

/** A primary, its replicas and three sentinels, each on a host of its own. */
export interface PartitionSentinels {
  primary: NamespacedRedis;
  replicas: NamespacedRedis[];
  sentinels: NamespacedRedis[];
  /** How clients reach the primary (ioredis Sentinel options). */
  connection: { sentinels: { host: string; port: number }[]; name: string };
  /** The address the sentinels name as primary now (asked of the first sentinel that answers). */
  primaryAddress(): Promise<string | undefined>;
}

/**
 * Starts a primary with `replicas` replicas and three sentinels (quorum 2) on new hosts of `net`;
 * `primaryArgs` go to the primary only (e.g. `min-replicas-to-write`). Resolves once the replicas
 * are in sync and every sentinel sees them and the other sentinels.
 */
export async function startPartitionSentinels(net: PartitionNet, replicas: number, primaryArgs: readonly string[] = []): Promise<PartitionSentinels> {
  const primary = await net.startRedis(net.addHost('primary'), ['--repl-diskless-sync-delay', '0', ...primaryArgs]);
  const replicaServers: NamespacedRedis[] = [];
  for (let i = 1; i <= replicas; i += 1) {
    replicaServers.push(await net.startRedis(net.addHost(`replica-${i}`), ['--replicaof', primary.host.address, String(primary.port)]));
  }
  // A replica that never finished its first sync cannot be promoted: wait for every link.
  for (const replica of replicaServers) {
    const client = replica.client();
    await waitFor('every replica in sync', async () => /master_link_status:up/.test(await client.info('replication')), 30_000, 100);
  }
  const sentinels: NamespacedRedis[] = [];
  for (let i = 1; i <= 3; i += 1) sentinels.push(await startSentinel(net, net.addHost(`sentinel-${i}`), primary));
  const primaryClient = primary.client();
  await waitFor(
    'the replicas in sync (and counted good, with min-replicas-to-write)',
    async () => {
      const info = await primaryClient.info('replication');
      const good = /min_slaves_good_slaves:(\d+)/.exec(info)?.[1];
      return /connected_slaves:(\d+)/.exec(info)?.[1] === String(replicas) && (good === undefined || good === String(replicas));
    },
    20_000,
    100,
  );
  for (const sentinel of sentinels) {
    const client = sentinel.client();
    await waitFor(
      'every sentinel to see the replicas and the other sentinels',
      async () => {
        const fields = (await client.call('SENTINEL', 'MASTER', MASTER)) as string[];
        const field = (name: string) => Number(fields[fields.indexOf(name) + 1]);
        return field('num-slaves') === replicas && field('num-other-sentinels') === 2;
      },
      30_000,
      100,
    );
  }
  return {
    primary,
    replicas: replicaServers,
    sentinels,
    connection: { sentinels: sentinels.map((sentinel) => ({ host: sentinel.host.address, port: sentinel.port })), name: MASTER },
    primaryAddress: async () => {
      for (const sentinel of sentinels) {
        const reply = (await sentinel.client({ maxRetriesPerRequest: 1 }).call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER).catch(() => undefined)) as string[] | undefined;
        if (reply?.[0]) return reply[0];
      }
      return undefined;
    },
  };
}

async function startSentinel(net: PartitionNet, host: PartitionHost, primary: NamespacedRedis): Promise<NamespacedRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'dt-partition-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  // Sentinel rewrites its config file with what it learns (replicas, other sentinels, epochs).
  writeFileSync(
    conf,
    [
      `sentinel monitor ${MASTER} ${primary.host.address} ${primary.port} 2`,
      `sentinel down-after-milliseconds ${MASTER} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${MASTER} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${MASTER} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = await net.startRedis(host, [conf, '--sentinel'], SENTINEL_PORT);
  sentinel.process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return sentinel;
}
