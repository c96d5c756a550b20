import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { DemoMessages } from '../demo.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';
import { sleep } from '../util/async.js';
import type { ProcessRegistry } from './process-registry.js';

/** How to start one orders instance. */
export interface OrdersInstanceSpec {
  /** Name shown to the reader, e.g. `A'`. */
  name: string;
  /** Path of the built orders app (`apps/orders/dist/main.js`). */
  entryPoint: string;
  port: number;
  /** The app's environment (REDIS_URL, TIMEOUT_MODE, prefixes...), on top of the demo's own. */
  env: Record<string, string>;
  /** File that receives the instance's stdout and stderr. */
  logFile: string;
}

/** How a child process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const HEALTH_POLL_MS = 100;
const HEALTH_REQUEST_MS = 1000;

/** One running `node apps/orders/dist/main.js`, with the signals a deployment sends it. */
export class OrdersInstance {
  /** Resolves when the process has exited. */
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;

  private constructor(
    readonly spec: OrdersInstanceSpec,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Spawns the instance with its output going to its log file; does not wait for it to be up. */
  static launch(spec: OrdersInstanceSpec, registry: ProcessRegistry): OrdersInstance {
    const log = openSync(spec.logFile, 'a');
    try {
      const child = spawn(process.execPath, [spec.entryPoint], {
        env: { ...process.env, ...spec.env, PORT: String(spec.port) },
        stdio: ['ignore', log, log],
      });
      registry.add(child);
      // A spawn failure surfaces as 'exit' too; the 'error' event must not crash the demo.
      child.on('error', () => undefined);
      return new OrdersInstance(spec, child);
    } finally {
      closeSync(log);
    }
  }

  /** Name shown to the reader. */
  get name(): string {
    return this.spec.name;
  }

  /** Port the instance listens on. */
  get port(): number {
    return this.spec.port;
  }

  /** `http://127.0.0.1:<port>`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** Polls `GET /health` until it answers 200; throws when the process exits or time runs out. */
  async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exit) {
        const how = this.exit.signal ?? `code ${this.exit.code}`;
        throw new HarnessError('process', DemoMessages.instanceExited(this.name, how, this.spec.logFile), { logFile: this.spec.logFile });
      }
      try {
        const response = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(HEALTH_REQUEST_MS) });
        await response.body?.cancel();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await Promise.race([sleep(HEALTH_POLL_MS), this.exited]);
    }
    throw new HarnessError('process', DemoMessages.instanceNotHealthy(this.name, timeoutMs, this.spec.logFile), {
      logFile: this.spec.logFile,
    });
  }

  /**
   * SIGTERM, as an orchestrator sends it: the app drains and exits. Falls back to SIGKILL after
   * `graceMs`; says whether it had to.
   */
  async terminate(graceMs: number): Promise<{ forced: boolean }> {
    if (!this.running) return { forced: false };
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([this.exited, gaveUp]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return { forced: false };
    await this.kill();
    return { forced: true };
  }

  /** SIGKILL: the process dies at once, with whatever it held. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
