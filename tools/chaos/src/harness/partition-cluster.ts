import { spawnSync } from 'node:child_process';
import { redisCliBinary, waitFor, type NamespacedRedis, type PartitionNet } from '@durable-timeout/redis-testing';

/** `cluster-node-timeout` of the partition runs: a master unreachable this long is failed over. */
export const NODE_TIMEOUT_MS = 2_000;

/** A 3-master, 3-replica Redis Cluster whose nodes each run on a host of their own. */
export interface PartitionCluster {
  nodes: NamespacedRedis[];
  /** The first master, and the replica the cluster gave it. */
  master: NamespacedRedis;
  replicaOfMaster: NamespacedRedis;
  /** Startup nodes for clients. */
  connection: { cluster: { host: string; port: number }[] };
}

async function role(node: NamespacedRedis): Promise<string> {
  const info = await node.client({ maxRetriesPerRequest: 1 }).info('replication').catch(() => '');
  return /role:(\w+)/.exec(info)?.[1] ?? 'unknown';
}

/** Whether `node` is a master now. */
export async function isMaster(node: NamespacedRedis): Promise<boolean> {
  return (await role(node)) === 'master';
}

/** Whether `node` is a replica now. */
export async function isReplica(node: NamespacedRedis): Promise<boolean> {
  return (await role(node)) === 'slave';
}

/** Starts six cluster nodes on new hosts of `net`, joins them with `redis-cli --cluster create`, and waits until every node says the cluster is ok. */
export async function startPartitionCluster(net: PartitionNet): Promise<PartitionCluster> {
  const nodes: NamespacedRedis[] = [];
  for (let i = 1; i <= 6; i += 1) {
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--repl-diskless-sync-delay', '0'];
    nodes.push(await net.startRedis(net.addHost(`node-${i}`), args));
  }
  const created = spawnSync(
    redisCliBinary(),
    ['--cluster', 'create', ...nodes.map((node) => `${node.host.address}:${node.port}`), '--cluster-replicas', '1', '--cluster-yes'],
    { encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  for (const node of nodes) {
    const client = node.client();
    await waitFor('cluster_state:ok on every node', async () => /cluster_state:ok/.test(await client.call('CLUSTER', 'INFO') as string), 30_000, 100);
  }
  // redis-cli picks which nodes become masters: take the first node that is one.
  const selves = await Promise.all(nodes.map(async (node) => ((await node.client().call('CLUSTER', 'NODES')) as string).split('\n').find((line) => line.includes('myself'))?.split(' ') ?? []));
  const masterIndex = selves.findIndex((fields) => (fields[2] ?? '').split(',').includes('master'));
  if (masterIndex < 0) throw new Error('the new cluster has no master');
  const master = nodes[masterIndex]!;
  const masterId = selves[masterIndex]![0]!;
  const replicaOfMaster = await waitFor(
    "the first master's replica",
    async () => {
      for (const node of nodes.filter((other) => other !== master)) {
        const info = (await node.client().call('CLUSTER', 'NODES')) as string;
        const self = info.split('\n').find((line) => line.includes('myself'));
        if (self?.split(' ')[3] === masterId) return node;
      }
      return undefined;
    },
    30_000,
    100,
  );
  // A replica that never finished its first sync cannot be promoted: wait for every link.
  for (const node of nodes) {
    const client = node.client();
    await waitFor('every replica in sync', async () => !/role:slave/.test(await client.info('replication')) || /master_link_status:up/.test(await client.info('replication')), 30_000, 100);
  }
  return { nodes, master, replicaOfMaster, connection: { cluster: nodes.map((node) => ({ host: node.host.address, port: node.port })) } };
}
