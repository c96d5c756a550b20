import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { redisSentinelCommand } from './binary.js';
import { freePort } from './free-port.js';
import { LaggingProxy } from './lagging-proxy.js';
import { RedisServer } from './redis-server.js';
import { waitForReplicaAcks } from './replica-acks.js';
import { TestClients } from './test-clients.js';

/** Options of `RedisSentinelGroup.start`. */
export interface RedisSentinelGroupOptions {
  /** Replicas of the primary. Default 1. */
  replicas?: number;
  /** Sentinel processes. Default 3 (quorum 2), the smallest group that survives losing one. */
  sentinels?: number;
  /** Master name the sentinels monitor. Default `mymaster`. */
  name?: string;
  /** `down-after-milliseconds`: how long the primary may be silent before it counts as down. Default 1,000 ms. */
  downAfterMs?: number;
  /** `failover-timeout`. Default 5,000 ms. */
  failoverTimeoutMs?: number;
  /** Append-only file on the data servers. Default off. */
  appendonly?: boolean;
  /** More `redis-server` arguments for the data servers (primary and replicas). */
  args?: string[];
  /**
   * Replication lag: the first primary is reached through a `LaggingProxy` (the sentinels, the
   * clients and the replicas all name its port) that holds the primary's replication stream to the
   * chosen replicas `delayMs`, so they run that far behind; `killPrimary` drops what it holds.
   * `replicas`: `'all'` (default) or the indexes (0-based, in start order) of the lagging
   * replicas. After a failover the new primary is reached directly: the lag lasts until the first
   * failover.
   */
  lag?: { delayMs: number; replicas?: 'all' | number[] };
}

const liveSentinels = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveSentinels) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** redis-memory-server's watchdog: kills `childPid` when `parentPid` dies (a test process killed mid-run). */
function launchWatchdog(childPid: number): void {
  try {
    const require = createRequire(import.meta.url);
    const script = join(dirname(require.resolve('redis-memory-server/package.json')), 'scripts', 'redis_killer.js');
    const killer = spawn(process.execPath, [script, String(process.pid), String(childPid)], { stdio: 'ignore' });
    killer.unref();
  } catch {
    // no watchdog: the exit hook still kills the sentinel on a normal exit
  }
}

async function waitUntilAnswering(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 300 });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Sentinel on port ${port} did not answer within ${timeoutMs} ms: ${String(error)}`);
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One throwaway Sentinel process on loopback. */
export class SentinelProcess {
  /** Host the sentinel listens on. */
  readonly host = '127.0.0.1';
  private child: ChildProcess | undefined;

  private constructor(
    /** Port the sentinel listens on. */
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts a sentinel that monitors `name` at `primaryPort`. */
  static async start(name: string, primaryPort: number, quorum: number, downAfterMs: number, failoverTimeoutMs: number): Promise<SentinelProcess> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'dt-sentinel-'));
    // Sentinel rewrites its config file with what it learns (replicas, other sentinels, epochs).
    writeFileSync(
      join(dir, 'sentinel.conf'),
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
        `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
        `sentinel failover-timeout ${name} ${failoverTimeoutMs}`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = new SentinelProcess(port, dir);
    try {
      sentinel.launch();
      await waitUntilAnswering(port, 10_000);
    } catch (error) {
      await sentinel.stop();
      throw error;
    }
    return sentinel;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** Kills the process and deletes its directory. Idempotent. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private launch(): void {
    const { command, modeArgs } = redisSentinelCommand();
    const child = spawn(command, [join(this.dir, 'sentinel.conf'), ...modeArgs], { stdio: 'ignore' });
    child.on('error', () => undefined);
    installExitHook();
    liveSentinels.add(child);
    child.once('exit', () => liveSentinels.delete(child));
    if (child.pid !== undefined) launchWatchdog(child.pid);
    this.child = child;
  }
}

/**
 * A throwaway Redis Sentinel deployment on loopback: one primary, `replicas` replicas of it and
 * `sentinels` Sentinel processes that monitor it under `name` and promote a replica when the
 * primary is killed. Data servers are `RedisServer`s (kill, pause, restart each on its own); roles
 * change with a failover, so ask `primary()` for the current one.
 */
export class RedisSentinelGroup {
  private readonly clients = new TestClients();

  private constructor(
    /** Master name the sentinels know the primary by (ioredis `name`). */
    readonly name: string,
    /** The data servers: the first primary at start, then the replicas. */
    readonly servers: RedisServer[],
    /** The sentinel processes. */
    readonly sentinelProcesses: SentinelProcess[],
    /** The lagging proxy in front of the first primary (option `lag`), else none. */
    readonly proxies: LaggingProxy[] = [],
  ) {}

  /**
   * Starts the servers and sentinels; resolves once every sentinel sees every replica and (without
   * `lag`) the primary's writes are acknowledged by all of them (`waitForReplicaAcks`).
   */
  static async start(options: RedisSentinelGroupOptions = {}): Promise<RedisSentinelGroup> {
    const replicas = options.replicas ?? 1;
    const sentinels = options.sentinels ?? 3;
    const name = options.name ?? 'mymaster';
    if (!Number.isInteger(replicas) || replicas < 0) throw new Error(`replicas must be 0 or more, got ${replicas}.`);
    if (!Number.isInteger(sentinels) || sentinels < 1) throw new Error(`sentinels must be 1 or more, got ${sentinels}.`);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new Error(`Invalid master name "${name}": use letters, digits, ".", "_" or "-".`);
    const lag = options.lag;
    if (lag && (!Number.isFinite(lag.delayMs) || lag.delayMs < 0)) throw new Error(`lag.delayMs must be 0 or more, got ${lag.delayMs}.`);
    const servers: RedisServer[] = [];
    const processes: SentinelProcess[] = [];
    const proxies: LaggingProxy[] = [];
    try {
      const serverArgs = options.args ?? [];
      const primary = await RedisServer.start({ appendonly: options.appendonly, args: serverArgs });
      servers.push(primary);
      // With lag, a proxy stands for the primary towards everyone: replicas, sentinels and clients
      // name its port, and only the chosen replicas' links through it are delayed. (A proxy on the
      // replicas' links alone does not last: Sentinel points a replica whose primary address differs
      // from the one it monitors back at the real one, failover-timeout after it sees it.) A replica
      // still announces its own port (REPLCONF listening-port), so the sentinels find it at its real
      // address in the primary's INFO and promote it there, without the proxy.
      let front: { host: string; port: number } = primary;
      if (lag) {
        const chosen = lag.replicas === undefined || lag.replicas === 'all' ? undefined : lag.replicas;
        const proxy = await LaggingProxy.start(primary, {
          delayMs: lag.delayMs,
          lagging: chosen ? (port) => chosen.some((index) => servers[index + 1]?.port === port) : 'replicas',
        });
        proxies.push(proxy);
        front = proxy;
      }
      for (let i = 0; i < replicas; i++) {
        servers.push(
          await RedisServer.start({
            appendonly: options.appendonly,
            args: ['--replicaof', front.host, String(front.port), '--replica-priority', String(100 + i), ...serverArgs],
          }),
        );
      }
      const quorum = Math.floor(sentinels / 2) + 1;
      for (let i = 0; i < sentinels; i++) {
        processes.push(await SentinelProcess.start(name, front.port, quorum, options.downAfterMs ?? 1_000, options.failoverTimeoutMs ?? 5_000));
      }
      const group = new RedisSentinelGroup(name, servers, processes, proxies);
      await group.waitUntilReady(replicas, sentinels);
      // Behind a lagging proxy the primary's WAIT does not count the lagging replicas here (not
      // understood yet): the lag groups keep the sentinels' view of the links alone.
      if (replicas > 0 && !lag) {
        const probe = primary.client({ maxRetriesPerRequest: 1 });
        try {
          await waitForReplicaAcks(probe, 'replication-probe', replicas);
        } finally {
          probe.disconnect();
        }
      }
      return group;
    } catch (error) {
      await Promise.all([
        ...servers.map((server) => server.stop()),
        ...processes.map((sentinel) => sentinel.stop()),
        ...proxies.map((proxy) => proxy.close()),
      ]);
      throw error;
    }
  }

  /** The sentinels as ioredis takes them: `new Redis({ sentinels, name })`. */
  get sentinels(): { host: string; port: number }[] {
    return this.sentinelProcesses.map((sentinel) => ({ host: sentinel.host, port: sentinel.port }));
  }

  /** ioredis options that reach the current primary through the sentinels. */
  connectionOptions(): RedisOptions {
    return { sentinels: this.sentinels, name: this.name };
  }

  /** The data server the sentinels name as primary right now. */
  async primary(): Promise<RedisServer> {
    const port = await this.primaryPort();
    const server = this.servers.find((candidate) => candidate.port === port);
    if (!server) throw new Error(`The sentinels name port ${port} as primary, which is not one of this group's servers.`);
    return server;
  }

  /** The data servers other than the current primary. */
  async replicas(): Promise<RedisServer[]> {
    const port = await this.primaryPort();
    return this.servers.filter((server) => server.port !== port);
  }

  /**
   * Waits until the sentinels name a primary other than `formerPort` and that server answers as a
   * master (after a kill: until a replica was promoted). Returns how long it took, in ms.
   */
  async waitForPromotion(formerPort: number, timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      try {
        const port = await this.primaryPort();
        const server = this.servers.find((candidate) => candidate.port === port);
        if (port !== formerPort && server?.running) {
          const probe = this.probe(server.port);
          try {
            await probe.connect();
            if (/role:master/.test(await probe.info('replication'))) return performance.now() - started;
          } finally {
            probe.disconnect();
          }
        }
      } catch {
        // a server or sentinel is changing state: ask again
      }
      if (performance.now() - started > timeoutMs) throw new Error(`No promotion within ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * SIGKILLs the current primary. The lagging proxy in front of it (option `lag`) first drops
   * every byte it holds and closes every link through it, in the same turn of the event loop as
   * the kill: the replicas lose the primary's last `delayMs` of writes, as when its machine dies
   * with that much replication in flight. Returns the killed server and the replication bytes dropped.
   */
  async killPrimary(): Promise<{ server: RedisServer; droppedBytes: number }> {
    const server = await this.primary();
    let droppedBytes = 0;
    for (const proxy of this.proxies) if (proxy.target.port === server.port) droppedBytes += proxy.cut();
    await server.kill();
    return { server, droppedBytes };
  }

  /**
   * Starts a killed server again and waits until it follows the current primary: the sentinels
   * point a former primary at the promoted one (it boots as a master with its old data), and a
   * former replica at the primary too. Resolves once the primary's `WAIT` counts every running
   * replica, so a `durability` write is confirmed again; rejects when that takes over `timeoutMs`.
   */
  async rejoin(server: RedisServer, timeoutMs = 30_000): Promise<void> {
    if (!this.servers.includes(server)) throw new Error(`Port ${server.port} is not one of this group's servers.`);
    await server.restart();
    const primary = await this.primary();
    const replicas = this.servers.filter((candidate) => candidate !== primary && candidate.running).length;
    const probe = primary.client({ maxRetriesPerRequest: 1 });
    try {
      await waitForReplicaAcks(probe, 'replication-probe', replicas, timeoutMs);
    } finally {
      probe.disconnect();
    }
  }

  /** A new ioredis client of the current primary through the sentinels; `stop` closes it. */
  client(options: RedisOptions = {}): Redis {
    return this.clients.open({ ...this.connectionOptions(), ...options });
  }

  /** Stops the sentinels and servers and deletes their data. Idempotent. */
  async stop(): Promise<void> {
    this.clients.disconnectAll();
    await Promise.all(this.sentinelProcesses.map((sentinel) => sentinel.stop()));
    await Promise.all(this.servers.map((server) => server.stop()));
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
  }

  private probe(port: number): Redis {
    const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
    probe.on('error', () => undefined);
    return probe;
  }

  /** Port of the primary as the first answering sentinel names it (the server's own port, not its proxy's). */
  private async primaryPort(): Promise<number> {
    let lastError: unknown = new Error('No sentinel is running.');
    for (const sentinel of this.sentinelProcesses.filter((candidate) => candidate.running)) {
      const probe = this.probe(sentinel.port);
      try {
        await probe.connect();
        const reply = (await probe.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)) as [string, string] | null;
        if (reply) {
          const port = Number(reply[1]);
          return this.proxies.find((proxy) => proxy.port === port)?.target.port ?? port;
        }
      } catch (error) {
        lastError = error;
      } finally {
        probe.disconnect();
      }
    }
    throw lastError;
  }

  private async waitUntilReady(replicas: number, sentinels: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      let ready = true;
      for (const sentinel of this.sentinelProcesses) {
        const probe = this.probe(sentinel.port);
        try {
          await probe.connect();
          const master = (await probe.call('SENTINEL', 'MASTER', this.name)) as string[];
          const field = (key: string) => Number(master[master.indexOf(key) + 1]);
          if (field('num-slaves') < replicas || field('num-other-sentinels') < sentinels - 1) ready = false;
          const replicaRows = (await probe.call('SENTINEL', 'REPLICAS', this.name)) as string[][];
          for (const row of replicaRows) {
            if (row[row.indexOf('master-link-status') + 1] !== 'ok') ready = false;
          }
        } catch {
          ready = false;
        } finally {
          probe.disconnect();
        }
        if (!ready) break;
      }
      if (ready) return;
      if (Date.now() > deadline) throw new Error('The sentinels did not see every replica and sentinel within 30 s.');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
