import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import { redisCliBinary } from './binary.js';
import { freePort } from './free-port.js';
import { PORT_ATTEMPTS, portTaken, RedisServer } from './redis-server.js';

const run = promisify(execFile);

/** Starts one cluster node on free ports, trying new ones when a port was taken meanwhile. */
async function startNode(args: readonly string[]): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const { port, busPort } = await clusterPorts();
    try {
      return await RedisServer.start({
        port,
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort),
          '--cluster-node-timeout', '5000', ...args],
      });
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !portTaken(error)) throw error;
    }
  }
}

/** Options of `RedisCluster.start`. */
export interface RedisClusterOptions {
  /** Number of master nodes (no replicas). Default 3, the smallest cluster Redis accepts. */
  masters?: number;
  /** More `redis-server` arguments for every node. */
  args?: string[];
}

async function clusterPorts(): Promise<{ port: number; busPort: number }> {
  // The cluster bus needs a port of its own; ask for one rather than trusting port + 10000.
  return { port: await freePort(), busPort: await freePort() };
}

/**
 * A throwaway local Redis Cluster: `masters` real `redis-server` nodes with `cluster-enabled yes`,
 * joined by `redis-cli --cluster create`, each node a `RedisServer` that can be killed, paused or
 * restarted on its own.
 */
export class RedisCluster {
  private readonly clients = new Set<Cluster>();

  private constructor(
    /** The master nodes, in hash-slot order. */
    readonly nodes: RedisServer[],
  ) {}

  /** Starts the nodes, creates the cluster and waits until every node reports `cluster_state:ok`. */
  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    if (!Number.isInteger(masters) || masters < 3) throw new Error(`A Redis Cluster needs at least 3 masters, got ${masters}.`);
    const nodes: RedisServer[] = [];
    try {
      for (let i = 0; i < masters; i++) nodes.push(await startNode(options.args ?? []));
      const addresses = nodes.map((node) => `${node.host}:${node.port}`);
      await run(redisCliBinary(), ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
      const cluster = new RedisCluster(nodes);
      await cluster.waitUntilReady();
      return cluster;
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      throw error;
    }
  }

  /** Startup nodes for ioredis `Cluster`. */
  get startupNodes(): { host: string; port: number }[] {
    return this.nodes.map((node) => ({ host: node.host, port: node.port }));
  }

  /** A new ioredis `Cluster` client; `stop` closes it. */
  client(options: ClusterOptions = {}): Cluster {
    const client = new Cluster(this.startupNodes, options);
    client.on('error', () => {
      // faults are injected on purpose; tests observe them through their own calls
    });
    this.clients.add(client);
    return client;
  }

  /** Stops every node and deletes their data. Idempotent. */
  async stop(): Promise<void> {
    for (const client of this.clients) client.disconnect();
    this.clients.clear();
    await Promise.all(this.nodes.map((node) => node.stop()));
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (const node of this.nodes) {
      const probe = new Redis({ host: node.host, port: node.port, lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await probe.connect();
        for (;;) {
          const info = String(await probe.call('CLUSTER', 'INFO'));
          if (info.includes('cluster_state:ok')) break;
          if (Date.now() > deadline) throw new Error(`The cluster did not become ready in 30 s: ${info.split('\n')[0]}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        probe.disconnect();
      }
    }
  }
}
