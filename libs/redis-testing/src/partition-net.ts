import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { redisServerBinary } from './binary.js';
import { HarnessError } from './harness-error.js';
import { waitUntil } from './wait.js';

/**
 * Thrown by `PartitionNet.create` when this machine cannot build the test network (not root, no
 * `ip` command, namespaces refused by the kernel or a container). Scenarios that need it are then
 * "not run", never passed.
 */
export class PartitionUnavailableError extends HarnessError {
  constructor(
    /** Why the network could not be built (the failing command and its output). */
    readonly reason: string,
  ) {
    super(
      'environment',
      `Network partitions cannot be simulated on this machine: ${reason}. ` +
        'They need Linux network namespaces: run as root (or with CAP_NET_ADMIN) with iproute2 installed (`ip netns add` must work).',
    );
    this.name = 'PartitionUnavailableError';
  }
}

/** One host of the test network: a network namespace with one address on the test subnet. */
export interface PartitionHost {
  /** The name given to `addHost`. */
  readonly name: string;
  /** Its network namespace. */
  readonly namespace: string;
  /** Its address on the test subnet. */
  readonly address: string;
}

/** A `redis-server` (or Sentinel) running inside one host of the network. */
export interface NamespacedRedis {
  readonly host: PartitionHost;
  readonly port: number;
  /** `redis://address:port`. */
  readonly url: string;
  readonly process: ChildProcess;
  /** A new client (from the test runner, over its access link); closed by `PartitionNet.destroy`. */
  client(options?: RedisOptions): Redis;
  /** SIGKILLs the server and waits for its exit. */
  stop(): Promise<void>;
}

/** Every name this harness gives starts with it, followed by the creating process' id. */
const NAME_PREFIX = 'dtp';
/** Octets of the private 10.x.y.0/24 subnets a run may pick (one per run, not in use on the machine). */
const SUBNET_SECOND_OCTETS = [231, 232, 233, 234, 235, 236, 237, 238];
const RUNNER_HOST = 254;

const liveNets = new Set<PartitionNet>();
let exitHooked = false;

function ip(args: readonly string[], namespace?: string): { ok: boolean; output: string } {
  const full = namespace ? ['netns', 'exec', namespace, 'ip', ...args] : [...args];
  const result = spawnSync('ip', full, { encoding: 'utf8' });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

function mustIp(args: readonly string[], namespace?: string): string {
  const result = ip(args, namespace);
  if (!result.ok) throw new HarnessError('environment', `\`ip ${namespace ? `netns exec ${namespace} ip ` : ''}${args.join(' ')}\` failed: ${result.output}`);
  return result.output;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills every process inside `namespace`, then deletes it (its links go with it). */
function removeNamespace(namespace: string): void {
  const pids = ip(['netns', 'pids', namespace]).output.split(/\s+/).filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  ip(['netns', 'del', namespace]);
}

/** Namespaces named by this harness whose creating process is gone (a run that was SIGKILLed). */
function sweepStale(): void {
  const listed = ip(['netns', 'list']).output.split('\n').map((line) => line.split(' ')[0] ?? '');
  for (const namespace of listed) {
    const match = new RegExp(`^${NAME_PREFIX}(\\d+)-`).exec(namespace);
    if (match && !processAlive(Number(match[1]))) removeNamespace(namespace);
  }
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const net of liveNets) net.destroySync();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // 'exit' does not run when a signal ends the process (and `signal-exit`, which the Redis runner
    // loads, re-sends the signal instead of exiting): clean up first, then send the signal again,
    // so the process still ends as it would have (a handler that exits at once makes this moot).
    process.once(signal, () => {
      for (const net of liveNets) net.destroySync();
      process.kill(process.pid, signal);
    });
  }
}

/**
 * Whether this machine should be able to build the test network: Linux, running as root, with the
 * `ip` command. A run where this holds and `partitionSupport` still fails is a broken machine (the
 * partition scenarios must fail there, not be skipped).
 */
export function partitionsExpected(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('ip', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Whether the machine can build the test network; the reason when it cannot. */
export function partitionSupport(): { supported: true } | { supported: false; reason: string } {
  if (process.platform !== 'linux') return { supported: false, reason: `network namespaces are Linux only (this is ${process.platform})` };
  const version = ip(['-V']);
  if (!version.ok) return { supported: false, reason: `the \`ip\` command (iproute2) did not run: ${version.output}` };
  const probe = `${NAME_PREFIX}${process.pid}-probe`;
  const added = ip(['netns', 'add', probe]);
  if (!added.ok) return { supported: false, reason: `\`ip netns add\` failed: ${added.output}` };
  const lo = ip(['link', 'set', 'lo', 'up'], probe);
  ip(['netns', 'del', probe]);
  if (!lo.ok) return { supported: false, reason: `a new namespace's loopback did not come up: ${lo.output}` };
  return { supported: true };
}

/**
 * A private test network of network namespaces for partition tests. One namespace holds a bridge;
 * every host (Redis server, Sentinel, worker process) gets a namespace of its own, joined to the
 * bridge by a veth pair, with one address of a dedicated /24 that exists only on these links. The
 * test runner reaches the hosts over one more veth pair whose root end carries the runner's address
 * of that subnet (its only route is that link's own subnet). `cut` adds blackhole routes between two
 * sets of hosts, in both directions, so established connections stall and new ones fail, as in a
 * real partition; `heal` removes them. `destroy` (also run on process exit, and for the namespaces
 * of dead runs at the next `create`) kills the processes inside and deletes namespaces and links.
 */
export class PartitionNet {
  private readonly hosts: PartitionHost[] = [];
  private readonly children = new Set<ChildProcess>();
  private readonly clients = new Set<Redis>();
  private readonly cuts = new Set<string>();
  private readonly dirs: string[] = [];
  private destroyed = false;

  private constructor(
    /** Prefix of every namespace and link name of this network. */
    readonly name: string,
    /** First three octets of the subnet, e.g. `10.231.7`. */
    private readonly subnet: string,
    private readonly hub: string,
  ) {}

  /** The runner's address on the test subnet. */
  get runnerAddress(): string {
    return `${this.subnet}.${RUNNER_HOST}`;
  }

  /**
   * Builds the bridge and the runner's access link. Throws `PartitionUnavailableError` when the
   * machine cannot (see `partitionSupport`).
   */
  static async create(): Promise<PartitionNet> {
    const support = partitionSupport();
    if (!support.supported) throw new PartitionUnavailableError(support.reason);
    sweepStale();
    const inUse = ip(['-4', 'route', 'show', 'table', 'all']).output + ip(['-4', 'addr', 'show']).output;
    let subnet: string | undefined;
    for (let attempt = 0; attempt < 64 && !subnet; attempt += 1) {
      const second = SUBNET_SECOND_OCTETS[Math.floor(Math.random() * SUBNET_SECOND_OCTETS.length)]!;
      const candidate = `10.${second}.${Math.floor(Math.random() * 256)}`;
      if (!inUse.includes(`${candidate}.`)) subnet = candidate;
    }
    if (!subnet) throw new PartitionUnavailableError('no free 10.23x.y.0/24 subnet was found for the test network');
    const id = `${NAME_PREFIX}${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
    const hub = `${id}-hub`;
    mustIp(['netns', 'add', hub]);
    const net = new PartitionNet(id, subnet, hub);
    liveNets.add(net);
    hookExit();
    try {
      mustIp(['link', 'set', 'lo', 'up'], hub);
      mustIp(['link', 'add', 'br0', 'type', 'bridge'], hub);
      mustIp(['link', 'set', 'br0', 'up'], hub);
      // The runner's access link: created in the hub, its outer end moved to the root namespace.
      const outer = net.linkName('r');
      mustIp(['link', 'add', 'runner', 'type', 'veth', 'peer', 'name', outer], hub);
      mustIp(['link', 'set', outer, 'netns', '1'], hub);
      mustIp(['link', 'set', 'runner', 'master', 'br0'], hub);
      mustIp(['link', 'set', 'runner', 'up'], hub);
      mustIp(['addr', 'add', `${net.runnerAddress}/24`, 'dev', outer]);
      mustIp(['link', 'set', outer, 'up']);
    } catch (error) {
      net.destroySync();
      throw error;
    }
    return net;
  }

  /** Adds a host: its own namespace, a veth into the bridge, the next address of the subnet. */
  addHost(name: string): PartitionHost {
    if (this.destroyed) throw new HarnessError('usage', `The partition network ${this.name} was destroyed; create a new one.`);
    if (this.hosts.some((host) => host.name === name)) throw new HarnessError('usage', `The partition network already has a host named "${name}".`);
    const index = this.hosts.length + 1;
    if (index >= RUNNER_HOST) throw new HarnessError('usage', `A partition network holds at most ${RUNNER_HOST - 1} hosts.`);
    const host: PartitionHost = { name, namespace: `${this.name}-h${index}`, address: `${this.subnet}.${index}` };
    mustIp(['netns', 'add', host.namespace]);
    this.hosts.push(host);
    const port = `h${index}`;
    mustIp(['link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0'], this.hub);
    mustIp(['link', 'set', 'eth0', 'netns', host.namespace], this.hub);
    mustIp(['link', 'set', port, 'master', 'br0'], this.hub);
    mustIp(['link', 'set', port, 'up'], this.hub);
    mustIp(['link', 'set', 'lo', 'up'], host.namespace);
    mustIp(['addr', 'add', `${host.address}/24`, 'dev', 'eth0'], host.namespace);
    mustIp(['link', 'set', 'eth0', 'up'], host.namespace);
    return host;
  }

  /** The hosts added so far. */
  get allHosts(): readonly PartitionHost[] {
    return this.hosts;
  }

  /**
   * The command and arguments that run `command args` inside `host`'s namespace, e.g. for
   * `fork`'s `execPath`/`execArgv`: `ip netns exec <namespace> command args`.
   */
  wrap(host: PartitionHost, command: string, args: readonly string[] = []): { command: string; args: string[] } {
    return { command: 'ip', args: ['netns', 'exec', host.namespace, command, ...args] };
  }

  /** Spawns `command args` inside `host`; the process is killed by `destroy`. */
  spawn(host: PartitionHost, command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
    const wrapped = this.wrap(host, command, args);
    const child = spawn(wrapped.command, wrapped.args, { stdio: 'ignore', ...options });
    this.track(child);
    return child;
  }

  /** Registers a process started elsewhere (e.g. a forked worker) to be killed by `destroy`. */
  track(child: ChildProcess): void {
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
  }

  /**
   * Starts `redis-server` inside `host` on `port` (default 6379), listening on the host's address,
   * with its own data directory and `args` (e.g. `['--replicaof', ...]`, or `['--sentinel']` with a
   * config file); resolves once it answers PING from the runner.
   */
  async startRedis(host: PartitionHost, args: readonly string[] = [], port = 6379): Promise<NamespacedRedis> {
    const dir = mkdtempSync(join(tmpdir(), 'dt-partition-'));
    this.dirs.push(dir);
    const child = this.spawn(host, redisServerBinary(), [
      ...args,
      '--bind', host.address, '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no',
      '--protected-mode', 'no', '--logfile', join(dir, 'redis.log'),
    ]);
    const url = `redis://${host.address}:${port}`;
    const server: NamespacedRedis = {
      host,
      port,
      url,
      process: child,
      client: (options = {}) => {
        const client = new Redis({ host: host.address, port, ...options });
        client.on('error', () => undefined);
        this.clients.add(client);
        return client;
      },
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
    };
    const probe = server.client({ lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
    try {
      await waitUntil(async () => {
        if (child.exitCode !== null) throw new HarnessError('process', `redis-server in ${host.namespace} exited (code ${child.exitCode}); see ${join(dir, 'redis.log')}.`, { logFile: join(dir, 'redis.log') });
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          probe.disconnect();
          return false;
        }
      }, 10_000, `redis-server in ${host.namespace} (${url}) did not answer PING within 10 s`);
    } finally {
      probe.disconnect();
      this.clients.delete(probe);
    }
    return server;
  }

  /**
   * Cuts every host of `a` off from every host of `b`, both ways (blackhole routes in each
   * namespace): packets between them are dropped, everything else still flows. Idempotent.
   */
  cut(a: readonly PartitionHost[], b: readonly PartitionHost[]): void {
    for (const [from, to] of pairs(a, b)) {
      const key = `${from.namespace} ${to.address}`;
      if (this.cuts.has(key)) continue;
      mustIp(['route', 'add', 'blackhole', `${to.address}/32`], from.namespace);
      this.cuts.add(key);
    }
  }

  /** Undoes `cut(a, b)`. */
  heal(a: readonly PartitionHost[], b: readonly PartitionHost[]): void {
    for (const [from, to] of pairs(a, b)) {
      const key = `${from.namespace} ${to.address}`;
      if (!this.cuts.delete(key)) continue;
      mustIp(['route', 'del', 'blackhole', `${to.address}/32`], from.namespace);
    }
  }

  /** Removes every cut. */
  healAll(): void {
    for (const key of [...this.cuts]) {
      const [namespace, address] = key.split(' ') as [string, string];
      ip(['route', 'del', 'blackhole', `${address}/32`], namespace);
      this.cuts.delete(key);
    }
  }

  /** Kills every process started in the network, closes the clients, deletes namespaces and links. Idempotent. */
  async destroy(): Promise<void> {
    const exits = [...this.children].map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve))));
    this.destroySync();
    await Promise.all(exits);
  }

  /** `destroy` without waiting for the exits (for the process' exit handler). */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    liveNets.delete(this);
    for (const client of this.clients) client.disconnect();
    this.clients.clear();
    for (const child of this.children) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const host of this.hosts) removeNamespace(host.namespace);
    removeNamespace(this.hub);
    ip(['link', 'del', this.linkName('r')]);
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  /** A link name of this network (at most 15 characters, as the kernel requires). */
  private linkName(suffix: string): string {
    return `${NAME_PREFIX}${process.pid.toString(36)}${this.name.slice(-4)}${suffix}`.slice(0, 15);
  }
}

function* pairs(a: readonly PartitionHost[], b: readonly PartitionHost[]): Generator<[PartitionHost, PartitionHost]> {
  for (const x of a) {
    for (const y of b) {
      if (x === y) continue;
      yield [x, y];
      yield [y, x];
    }
  }
}

/** Options of `spawn` that run a Node script inside a host with `fork` (IPC kept): `fork(file, args, { ...forkInNamespace(net, host) })`. */
export function forkInNamespace(net: PartitionNet, host: PartitionHost): { execPath: string; execArgv: string[] } {
  const wrapped = net.wrap(host, process.execPath);
  return { execPath: wrapped.command, execArgv: wrapped.args };
}
