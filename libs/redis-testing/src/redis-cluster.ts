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
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort), ...args],
      });
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !portTaken(error)) throw error;
    }
  }
}

/** Options of `RedisCluster.start`. */
export interface RedisClusterOptions {
  /** Number of master nodes. Default 3, the smallest cluster Redis accepts. */
  masters?: number;
  /** Replicas of each master (e.g. 1 for the usual 3-master + 3-replica cluster). Default 0. */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a master may be unreachable before its replica is promoted.
   * Default 5,000 ms; failover tests use about 1,000 ms so a promotion takes seconds.
   */
  nodeTimeoutMs?: number;
  /** More `redis-server` arguments for every node. */
  args?: string[];
}

async function clusterPorts(): Promise<{ port: number; busPort: number }> {
  // The cluster bus needs a port of its own; ask for one rather than trusting port + 10000.
  return { port: await freePort(), busPort: await freePort() };
}

/**
 * A throwaway local Redis Cluster: `masters` real `redis-server` nodes with `cluster-enabled yes`
 * (and `replicasPerMaster` replicas of each), joined by `redis-cli --cluster create`, each node a
 * `RedisServer` that can be killed, paused or restarted on its own. Roles change when a master is
 * killed and its replica promoted: ask `master()` / `replicas()` for the current ones.
 */
export class RedisCluster {
  private readonly clients = new Set<Cluster>();

  private constructor(
    /** Every node: the masters in hash-slot order as created, then the replicas. */
    readonly nodes: RedisServer[],
  ) {}

  /** Starts the nodes, creates the cluster and waits until every node reports `cluster_state:ok`. */
  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    if (!Number.isInteger(masters) || masters < 3) throw new Error(`A Redis Cluster needs at least 3 masters, got ${masters}.`);
    const replicas = options.replicasPerMaster ?? 0;
    if (!Number.isInteger(replicas) || replicas < 0) throw new Error(`replicasPerMaster must be 0 or more, got ${replicas}.`);
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 5_000;
    const nodes: RedisServer[] = [];
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) {
        nodes.push(
          await startNode([
            '--cluster-node-timeout', String(nodeTimeoutMs),
            // A replica is promoted however long ago it last heard from its master (tests kill masters on purpose).
            ...(replicas > 0 ? ['--cluster-replica-validity-factor', '0'] : []),
            ...(options.args ?? []),
          ]),
        );
      }
      const addresses = nodes.map((node) => `${node.host}:${node.port}`);
      // redis-cli makes the first `masters` addresses masters and the rest their replicas.
      await run(redisCliBinary(), ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes']);
      const cluster = new RedisCluster(nodes);
      await cluster.waitUntilReady(masters * replicas);
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

  /**
   * The node serving `key`'s hash slot as master right now (after a failover: the promoted replica).
   * Asks a running node with `CLUSTER SHARDS`-free commands (`CLUSTER KEYSLOT`, `CLUSTER NODES`).
   */
  async masterOf(key: string): Promise<RedisServer> {
    const table = await this.table();
    const slot = Number(await this.ask(['CLUSTER', 'KEYSLOT', key]));
    const owner = table.find((row) => row.master && row.connected && row.ranges.some(([from, to]) => slot >= from && slot <= to));
    const node = owner && this.nodes.find((candidate) => candidate.port === owner.port);
    if (!node) throw new Error(`No connected master serves hash slot ${slot} (${key}).`);
    return node;
  }

  /** The nodes that are masters with hash slots right now, as the running nodes see them. */
  async masters(): Promise<RedisServer[]> {
    const table = await this.table();
    return this.nodes.filter((node) => table.some((row) => row.port === node.port && row.master && row.connected && row.ranges.length > 0));
  }

  /** The nodes that are connected replicas right now. */
  async replicas(): Promise<RedisServer[]> {
    const table = await this.table();
    return this.nodes.filter((node) => table.some((row) => row.port === node.port && !row.master && row.connected));
  }

  /**
   * Waits until every hash slot is served by a connected master and the running nodes report
   * `cluster_state:ok` (after a kill: until a replica was promoted). Returns how long it took.
   */
  async waitForFailover(timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      try {
        const running = this.nodes.filter((node) => node.running);
        const states = await Promise.all(running.map((node) => this.ask(['CLUSTER', 'INFO'], node)));
        const table = await this.table();
        const covered = table
          .filter((row) => row.master && row.connected)
          .reduce((sum, row) => sum + row.ranges.reduce((n, [from, to]) => n + to - from + 1, 0), 0);
        if (covered === 16_384 && states.every((info) => info.includes('cluster_state:ok'))) return performance.now() - started;
      } catch {
        // a node is going down or coming up: ask again
      }
      if (performance.now() - started > timeoutMs) throw new Error(`No failover within ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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

  /** `CLUSTER NODES` of a running node, parsed: port, role, link state and hash-slot ranges. */
  private async table(): Promise<{ port: number; master: boolean; connected: boolean; ranges: [number, number][] }[]> {
    const text = await this.ask(['CLUSTER', 'NODES']);
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [, address = '', flags = '', , , , , link = '', ...slots] = line.split(' ');
        const port = Number(/:(\d+)@/.exec(address)?.[1]);
        const ranges = slots
          .filter((range) => /^\d/.test(range))
          .map((range): [number, number] => {
            const [from, to = from] = range.split('-').map(Number) as [number, number?];
            return [from, to];
          });
        const failed = /fail(?!\?)/.test(flags);
        return { port, master: flags.includes('master'), connected: link === 'connected' && !failed, ranges };
      });
  }

  /** Sends one command to `node`, or to the first running node that answers. */
  private async ask(command: string[], node?: RedisServer): Promise<string> {
    const candidates = node ? [node] : this.nodes.filter((candidate) => candidate.running);
    let lastError: unknown = new Error('No cluster node is running.');
    for (const candidate of candidates) {
      const probe = new Redis({ host: candidate.host, port: candidate.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return String(await probe.call(command[0]!, ...command.slice(1)));
      } catch (error) {
        lastError = error;
      } finally {
        probe.disconnect();
      }
    }
    throw lastError;
  }

  private async waitUntilReady(replicas: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (const node of this.nodes) {
      const probe = new Redis({ host: node.host, port: node.port, lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await probe.connect();
        for (;;) {
          const info = String(await probe.call('CLUSTER', 'INFO'));
          // A replica counts once it has synced with its master (it can be promoted from then on).
          const synced = replicas === 0 || (await this.table()).filter((row) => !row.master && row.connected).length === replicas;
          const replication = String(await probe.call('INFO', 'replication'));
          const linked = !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
          if (info.includes('cluster_state:ok') && synced && linked) break;
          if (Date.now() > deadline) throw new Error(`The cluster did not become ready in 30 s: ${info.split('\n')[0]}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        probe.disconnect();
      }
    }
  }
}
