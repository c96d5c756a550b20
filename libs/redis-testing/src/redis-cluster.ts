import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import { redisCliBinary } from './binary.js';
import { freePort } from './free-port.js';
import { LaggingProxy } from './lagging-proxy.js';
import { PORT_ATTEMPTS, portTaken, RedisServer } from './redis-server.js';
import { waitForReplicaAcks } from './replica-acks.js';

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
  /**
   * Replication lag (needs `replicasPerMaster` of 1 or more): the first master announces a
   * `LaggingProxy` in front of it as its address (`cluster-announce-port`; its cluster bus port
   * stays direct), so its replica's replication link and the clients reach it through the proxy,
   * and only the replica's link is delayed by `delayMs`. `killMaster` drops what the proxy holds.
   * The lag lasts until that master is killed: restarted, it announces its own port again, and
   * the promoted replica is reached directly.
   */
  lag?: { delayMs: number };
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
    /** The lagging proxy in front of the first master (option `lag`), else none. */
    readonly proxies: LaggingProxy[] = [],
  ) {}

  /**
   * Starts the nodes, creates the cluster and waits until every node reports `cluster_state:ok`
   * and every master's writes are acknowledged by its replicas (`waitUntilReplicated`).
   */
  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    if (!Number.isInteger(masters) || masters < 3) throw new Error(`A Redis Cluster needs at least 3 masters, got ${masters}.`);
    const replicas = options.replicasPerMaster ?? 0;
    if (!Number.isInteger(replicas) || replicas < 0) throw new Error(`replicasPerMaster must be 0 or more, got ${replicas}.`);
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 5_000;
    const lag = options.lag;
    if (lag && (!Number.isFinite(lag.delayMs) || lag.delayMs < 0)) throw new Error(`lag.delayMs must be 0 or more, got ${lag.delayMs}.`);
    if (lag && replicas < 1) throw new Error('lag delays a replica of the first master: set replicasPerMaster to 1 or more.');
    const nodes: RedisServer[] = [];
    const proxies: LaggingProxy[] = [];
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
      const cluster = new RedisCluster(nodes, proxies);
      await cluster.waitUntilReady(masters * replicas);
      await cluster.waitUntilReplicated();
      if (lag) await cluster.putProxyInFront(nodes[0]!, lag.delayMs);
      return cluster;
    } catch (error) {
      await Promise.all([...nodes.map((node) => node.stop()), ...proxies.map((proxy) => proxy.close())]);
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

  /**
   * Resolves once a write on every master is acknowledged (`WAIT`) by each of its connected
   * replicas: from then on a master counts its replicas' acks (see `waitForReplicaAcks`; a
   * replica's `master_link_status:up` comes earlier). For a start, and after a node was restarted
   * as a replica.
   */
  async waitUntilReplicated(timeoutMs = 30_000): Promise<void> {
    const table = await this.table();
    await Promise.all(
      table
        .filter((row) => row.master && row.connected && row.ranges.length > 0)
        .map(async (master) => {
          const replicas = table.filter((row) => row.masterId === master.id && row.connected).length;
          const node = this.nodes.find((candidate) => candidate.port === master.port);
          if (replicas === 0 || !node) return;
          const probe = new Redis({ host: node.host, port: node.port, maxRetriesPerRequest: 1 });
          probe.on('error', () => undefined);
          try {
            // A key of one of the master's hash slots, so that the master takes the probe's write.
            let key = '';
            for (let i = 0; key === ''; i++) {
              const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', `replication-probe-${i}`));
              if (master.ranges.some(([from, to]) => slot >= from && slot <= to)) key = `replication-probe-${i}`;
            }
            await waitForReplicaAcks(probe, key, replicas, timeoutMs);
          } finally {
            probe.disconnect();
          }
        }),
    );
  }

  /**
   * SIGKILLs `node`. A lagging proxy in front of it (option `lag`) first drops every byte it holds
   * and closes every link through it, in the same turn of the event loop as the kill: its replica
   * loses the master's last `delayMs` of writes, as when the master's machine dies with that much
   * replication in flight. Returns the replication bytes dropped.
   */
  async killMaster(node: RedisServer): Promise<{ droppedBytes: number }> {
    let droppedBytes = 0;
    for (const proxy of this.proxies) if (proxy.target.port === node.port) droppedBytes += proxy.cut();
    await node.kill();
    return { droppedBytes };
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
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
  }

  /**
   * Starts a lagging proxy in front of `master` and makes the master announce it to the cluster
   * (clients' redirections and its replica's replication link then name the proxy; the cluster
   * bus stays direct). Resolves once every node names the proxy and the replica is in sync
   * through it.
   */
  private async putProxyInFront(master: RedisServer, delayMs: number): Promise<void> {
    const proxy = await LaggingProxy.start(master, { delayMs, lagging: 'replicas' });
    this.proxies.push(proxy);
    const busPort = (await this.ask(['CONFIG', 'GET', 'cluster-port'], master)).split(',')[1] ?? '';
    // The bus stays direct (pinned to the real bus port); only the data port is announced at the proxy.
    await this.ask(['CONFIG', 'SET', 'cluster-announce-bus-port', busPort], master);
    await this.ask(['CONFIG', 'SET', 'cluster-announce-port', String(proxy.port)], master);
    const myId = await this.ask(['CLUSTER', 'MYID'], master);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const running = this.nodes.filter((node) => node.running);
      const views = await Promise.all(running.map((node) => this.ask(['CLUSTER', 'NODES'], node)));
      const named = views.every((view) => view.split('\n').some((line) => line.startsWith(`${myId} 127.0.0.1:${proxy.port}@`)));
      const replication = await Promise.all(running.map((node) => this.ask(['INFO', 'replication'], node)));
      const linked = replication.some((info) => info.includes(`master_port:${proxy.port}`) && /master_link_status:up/.test(info));
      if (named && linked) return;
      if (Date.now() > deadline) throw new Error(`The cluster did not move master ${master.port} behind its lagging proxy within 30 s.`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** `CLUSTER NODES` of a running node, parsed: ids (a replica's master's too), port, role, link state and hash-slot ranges. */
  private async table(): Promise<{ id: string; masterId: string; port: number; master: boolean; connected: boolean; ranges: [number, number][] }[]> {
    const text = await this.ask(['CLUSTER', 'NODES']);
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [id = '', address = '', flags = '', masterId = '', , , , link = '', ...slots] = line.split(' ');
        const announced = Number(/:(\d+)@/.exec(address)?.[1]);
        // A master behind a lagging proxy announces the proxy's port: name the server's own.
        const port = this.proxies.find((proxy) => proxy.port === announced)?.target.port ?? announced;
        const ranges = slots
          .filter((range) => /^\d/.test(range))
          .map((range): [number, number] => {
            const [from, to = from] = range.split('-').map(Number) as [number, number?];
            return [from, to];
          });
        const failed = /fail(?!\?)/.test(flags);
        return { id, masterId, port, master: flags.includes('master'), connected: link === 'connected' && !failed, ranges };
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
