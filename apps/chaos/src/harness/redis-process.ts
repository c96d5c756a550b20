import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { track, untrack } from './processes.js';

/** Options of a Redis server started by the harness. */
export interface ChaosRedisOptions {
  /** `yes` to turn the append-only file on. Default off (no persistence at all). */
  appendonly?: boolean;
  /** AOF fsync policy when `appendonly` is on. */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** TLS: the server listens with TLS only, with these PEM files. */
  tls?: { certFile: string; keyFile: string; caFile: string };
  /** Extra `redis-server` arguments, e.g. `['--slowlog-log-slower-than', '0']`. */
  args?: string[];
}

/** Asks the kernel for a free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A throwaway `redis-server` on loopback with its own port and data directory, which the faults
 * act on: SIGKILL, SIGTERM, SIGSTOP/SIGCONT, restart on the same port and data.
 */
export class ChaosRedis {
  private child: ChildProcess | undefined;
  private paused = false;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly options: ChaosRedisOptions,
  ) {}

  /** Starts a server and waits until it answers. */
  static async start(options: ChaosRedisOptions = {}): Promise<ChaosRedis> {
    const server = new ChaosRedis(await freePort(), mkdtempSync(join(tmpdir(), 'dt-chaos-redis-')), options);
    await server.launch();
    return server;
  }

  /** `redis://` or `rediss://` URL of the server. */
  get url(): string {
    return `${this.options.tls ? 'rediss' : 'redis'}://127.0.0.1:${this.port}`;
  }

  /** Process id of the running server, if any. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** An ioredis client for the harness' own inspection (fails fast, never retries for long). */
  client(extra: RedisOptions = {}): Redis {
    return new Redis({ host: '127.0.0.1', port: this.port, maxRetriesPerRequest: 1, lazyConnect: false, ...extra });
  }

  /** SIGKILL: the server dies at once, losing whatever it had not written to disk. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL');
  }

  /** SIGTERM: the server shuts down cleanly (flushes the AOF). */
  async stop(): Promise<void> {
    await this.signalAndWait('SIGTERM');
  }

  /** SIGSTOP: the server freezes; connections stay open but nothing is answered. */
  pause(): void {
    if (this.child?.pid && !this.paused) {
      process.kill(this.child.pid, 'SIGSTOP');
      this.paused = true;
    }
  }

  /** SIGCONT after `pause`. */
  resume(): void {
    if (this.child?.pid && this.paused) {
      process.kill(this.child.pid, 'SIGCONT');
      this.paused = false;
    }
  }

  /** Starts the server again on the same port and data directory (after `kill` or `stop`). */
  async restart(): Promise<void> {
    if (this.child) await this.kill();
    await this.launch();
  }

  /** Kills the server and removes its data directory. */
  async dispose(): Promise<void> {
    if (this.child) {
      this.resume();
      await this.kill();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const args = [
      '--bind', '127.0.0.1',
      '--dir', this.dir,
      '--save', '',
      '--appendonly', this.options.appendonly ? 'yes' : 'no',
      '--daemonize', 'no',
      '--loglevel', 'warning',
    ];
    if (this.options.appendfsync) args.push('--appendfsync', this.options.appendfsync);
    if (this.options.tls) {
      args.push(
        '--port', '0',
        '--tls-port', String(this.port),
        '--tls-cert-file', this.options.tls.certFile,
        '--tls-key-file', this.options.tls.keyFile,
        '--tls-ca-cert-file', this.options.tls.caFile,
        '--tls-auth-clients', 'no',
      );
    } else {
      args.push('--port', String(this.port));
    }
    args.push(...(this.options.args ?? []));
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.resume();
    child.stderr?.resume();
    this.child = child;
    this.paused = false;
    track(child, `redis:${this.port}`);
    child.once('exit', () => {
      untrack(child);
      if (this.child === child) this.child = undefined;
    });
    await this.waitReady();
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (!this.child) throw new Error(`redis-server on port ${this.port} exited during start; check that redis-server 7 is installed`);
      const probe = new Redis({
        host: '127.0.0.1',
        port: this.port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        tls: this.options.tls ? { rejectUnauthorized: false } : undefined,
      });
      try {
        await probe.connect();
        // Loading the AOF answers LOADING; wait for a real PONG.
        if ((await probe.ping()) === 'PONG') return;
      } catch (error) {
        lastError = error;
      } finally {
        probe.disconnect();
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 10 s: ${String(lastError)}`);
  }

  private async signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (this.paused && signal !== 'SIGKILL') this.resume();
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    this.paused = false;
  }
}
