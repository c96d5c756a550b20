import type { ChildProcess } from 'node:child_process';
import { freePort } from '@durable-timeout/redis-testing';
import { eventually } from '@durable-timeout/sample-app-support';
import { start } from './commands.js';

/** An HTTP answer: status, headers and parsed JSON body. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** A consumer Nest app started with `node dist/main.js`, as `npm run start:prod` starts it. */
export class NestAppProcess {
  private output = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts the built app of `dir` on a free port; `ready` resolves when it answers HTTP. */
  static async start(dir: string, env: Record<string, string>): Promise<NestAppProcess> {
    const port = await freePort();
    return new NestAppProcess(start(process.execPath, ['dist/main.js'], dir, { ...env, PORT: String(port) }), `http://127.0.0.1:${port}`);
  }

  /** Waits until the app answers HTTP; fails at once when it exited instead. */
  async ready(): Promise<void> {
    const answer = await eventually(
      () => this.get('/health').catch(() => ({ status: 0, headers: new Headers(), body: undefined })),
      (attempt) => attempt.status !== 0 || this.child.exitCode !== null || this.child.signalCode !== null,
      20_000,
    );
    if (answer.status === 0) throw new Error(`the app exited before it answered HTTP:\n${this.output}`);
  }

  /** What the app printed so far. */
  get log(): string {
    return this.output;
  }

  get(path: string): Promise<HttpAnswer> {
    return this.request('GET', path);
  }

  post(path: string): Promise<HttpAnswer> {
    return this.request('POST', path);
  }

  /**
   * Sends SIGTERM and resolves with how the process ended. With `enableShutdownHooks()` Nest runs
   * its shutdown hooks, then kills itself with the same signal (exit code null, signal SIGTERM).
   */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  private async request(method: string, path: string): Promise<HttpAnswer> {
    const response = await fetch(`${this.url}${path}`, { method });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }
}
