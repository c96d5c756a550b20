import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Redis, RedisOptions } from 'ioredis';
import { RedisInstance } from 'redis-memory-server';
import { redisServerBinary } from './binary.js';
import { freePort } from './free-port.js';
import { TestClients } from './test-clients.js';

/** How many ports `start` tries when the one it picked was taken before the server bound it. */
export const PORT_ATTEMPTS = 5;

/** Whether a failed start failed because its port (or cluster bus port) was taken. */
export function portTaken(error: unknown): boolean {
  return /already in use/i.test(error instanceof Error ? error.message : String(error));
}

/** TLS files of a server that listens with TLS only. */
export interface RedisTlsFiles {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/** Options of `RedisServer.start`. */
export interface RedisServerOptions {
  /** Turns the append-only file on. Default off: the server keeps nothing on disk. */
  appendonly?: boolean;
  /** fsync policy of the append-only file. */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** Password of the default user (`requirepass`). */
  password?: string;
  /** Listen with TLS only, with these PEM files; clients skip client certificates. */
  tls?: RedisTlsFiles;
  /** More `redis-server` arguments, e.g. `['--slowlog-log-slower-than', '0']`. */
  args?: string[];
  /** Use this port instead of a free one (cluster nodes pick theirs). */
  port?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A throwaway server must never outlive the process that started it.
  process.once('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A throwaway real `redis-server` on loopback, with its own free port and data directory, started
 * through `redis-memory-server`'s instance runner with the system binary (it also keeps a watchdog
 * that kills the server if the test process dies). Tests and benchmarks act on it like faults
 * do in production: SIGKILL, SIGTERM, SIGSTOP / SIGCONT, and a restart on the same port and data.
 */
export class RedisServer {
  /** Host the server listens on. */
  readonly host = '127.0.0.1';
  private instance: RedisInstance | undefined;
  private child: ChildProcess | undefined;
  private paused = false;
  private readonly clients = new TestClients();

  private constructor(
    /** Port the server listens on (TLS port when `tls` is set). */
    readonly port: number,
    /** Data directory (AOF, nodes.conf); deleted by `stop`. */
    readonly dir: string,
    private readonly options: RedisServerOptions,
  ) {}

  /** Starts a server and waits until it accepts connections. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    // A free port can be taken by another process between `freePort` and the server's bind
    // (parallel suites start servers all the time): pick another one and try again.
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const dir = mkdtempSync(join(tmpdir(), 'dt-redis-'));
      const server = new RedisServer(port, dir, options);
      try {
        await server.launch();
        return server;
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        if (options.port !== undefined || attempt >= PORT_ATTEMPTS || !portTaken(error)) throw error;
      }
    }
  }

  /** Connection URL: `redis://[:password@]127.0.0.1:port`, `rediss://` with TLS. */
  get url(): string {
    const auth = this.options.password ? `:${encodeURIComponent(this.options.password)}@` : '';
    return `${this.options.tls ? 'rediss' : 'redis'}://${auth}${this.host}:${this.port}`;
  }

  /** Process id of the running server, undefined while it is down. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the server process is running (it may be paused). */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** ioredis options that reach this server (password and TLS CA included). */
  connectionOptions(): RedisOptions {
    const tls = this.options.tls;
    return {
      host: this.host,
      port: this.port,
      ...(this.options.password ? { password: this.options.password } : {}),
      ...(tls ? { tls: { ca: readFileSync(tls.caFile), servername: 'localhost' } } : {}),
    };
  }

  /** A new ioredis client of this server; `stop` closes it. */
  client(options: RedisOptions = {}): Redis {
    return this.clients.open({ ...this.connectionOptions(), ...options });
  }

  /** SIGKILL: the server dies at once, without writing anything more. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** SIGTERM: the server shuts down cleanly (flushes the AOF). */
  async terminate(): Promise<void> {
    await this.signal('SIGTERM');
  }

  /** SIGSTOP: the server stops answering; connections stay open. */
  pause(): void {
    if (!this.child || this.paused) return;
    this.child.kill('SIGSTOP');
    this.paused = true;
  }

  /** SIGCONT: a paused server answers again. */
  resume(): void {
    if (!this.child || !this.paused) return;
    this.child.kill('SIGCONT');
    this.paused = false;
  }

  /** Starts the server again on the same port with the same data directory (after kill / terminate). */
  async restart(): Promise<void> {
    if (this.running) await this.terminate();
    await this.launch();
  }

  /** Stops the server, closes the clients made by `client`, deletes the data directory. Idempotent. */
  async stop(): Promise<void> {
    this.clients.disconnectAll();
    if (this.running) await this.signal('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private args(): string[] {
    const o = this.options;
    // A replica's first sync starts at once: Redis' default waits 5 s for more replicas to share one
    // diskless transfer, which every cluster and Sentinel group with replicas would wait for.
    const args = ['--dir', this.dir, '--save', '', '--appendonly', o.appendonly ? 'yes' : 'no', '--repl-diskless-sync-delay', '0'];
    if (o.appendfsync) args.push('--appendfsync', o.appendfsync);
    if (o.password) args.push('--requirepass', o.password);
    if (o.tls) {
      args.push('--port', '0', '--tls-port', String(this.port), '--tls-cert-file', o.tls.certFile);
      args.push('--tls-key-file', o.tls.keyFile, '--tls-ca-cert-file', o.tls.caFile, '--tls-auth-clients', 'no');
    }
    return [...args, ...(o.args ?? [])];
  }

  private async launch(): Promise<void> {
    // The instance runner takes our port as given: the server must come back on the same one.
    const instance = await RedisInstance.run({
      binary: { systemBinary: redisServerBinary() },
      instance: { ip: this.host, port: this.port, args: this.args() },
    });
    const child = instance.childProcess;
    if (!child) throw new Error(`redis-server on port ${this.port} did not start; see its data directory ${this.dir}.`);
    installExitHook();
    live.add(child);
    child.once('exit', () => live.delete(child));
    this.instance = instance;
    this.child = child;
    this.paused = false;
  }

  private async signal(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    if (this.paused && signal !== 'SIGKILL') child.kill('SIGCONT');
    this.paused = false;
    const exited = waitForExit(child);
    child.kill(signal);
    await exited;
    // Let the runner end its watchdog process; the server is already gone.
    await this.instance?.kill().catch(() => undefined);
    this.instance = undefined;
  }
}
