import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, RedisServer } from '@durable-timeout/redis-testing';
import { DurableTimeouts } from '../src/durable-timeouts.js';
import { buildCore } from './fixtures/worker-process.js';
import { uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

const appScript = fileURLToPath(new URL('./fixtures/lifecycle-app.mjs', import.meta.url));

type AppMessage =
  | { type: 'ready' }
  | { type: 'started'; id: string }
  | { type: 'start-failed'; error: string }
  | { type: 'connection-errors'; count: number }
  | { type: 'claim-waiting' }
  | { type: 'stopped'; stopMs: number };

/** The fixture application in a child process: what it said, and when it ended (`performance.now()`). */
class App {
  readonly messages: AppMessage[] = [];
  readonly exited: Promise<number>;
  private readonly child: ChildProcess;

  constructor(env: Record<string, string>) {
    this.child = fork(appScript, [], { env: { ...process.env, ...env }, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: AppMessage) => this.messages.push(message));
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve(performance.now())));
  }

  find<T extends AppMessage['type']>(type: T): Extract<AppMessage, { type: T }> | undefined {
    return this.messages.find((message): message is Extract<AppMessage, { type: T }> => message.type === type);
  }

  get connectionErrors(): number {
    return Math.max(0, ...this.messages.map((message) => (message.type === 'connection-errors' ? message.count : 0)));
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** SIGKILL when still running (a test that failed must not leave it behind). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Resolves with `performance.now()` at exit, or with null when the process is still running after `ms`. */
async function exitWithin(app: App, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  const result = await Promise.race([app.exited, late]);
  clearTimeout(timer);
  return result;
}

const apps: App[] = [];
const servers: RedisServer[] = [];

beforeAll(() => {
  buildCore();
}, 120_000);

afterEach(async () => {
  for (const app of apps.splice(0)) app.kill();
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

afterAll(() => {
  for (const app of apps) app.kill();
});

function startApp(env: Record<string, string>): App {
  const app = new App(env);
  apps.push(app);
  return app;
}

describe('a failed start', () => {
  it('closes what it opened: a process that catches the rejected start() ends by itself', async () => {
    const port = await freePort();
    const app = startApp({ MODE: 'start-fails', REDIS_URL: `redis://127.0.0.1:${port}`, PREFIX: uniquePrefix(), COMMAND_TIMEOUT_MS: '300' });
    await waitUntil(() => app.find('start-failed') !== undefined, 15_000, 'start() to fail');
    expect(app.find('start-failed')!.error).toMatch(/^RedisUnavailableError: /);
    const failedAt = performance.now();
    // Nothing else is left to do in that process: only an open socket or timer could keep it alive.
    const exitedAt = await exitWithin(app, 5_000);
    expect(exitedAt).not.toBeNull();
    expect(exitedAt! - failedAt).toBeLessThan(5_000);
  });

  it('can be retried: a new connection is opened, and it fires once Redis is there', async () => {
    const port = await freePort();
    const timeouts = new DurableTimeouts({ connection: `redis://127.0.0.1:${port}`, prefix: uniquePrefix(), topics: { work: {} }, commandTimeoutMs: 300, logger: null });
    try {
      const fired: string[] = [];
      timeouts.handle('work', (event) => {
        fired.push(event.id);
      });
      await expect(timeouts.start()).rejects.toThrow(/could not be reached .*ECONNREFUSED/);
      const server = await RedisServer.start({ port });
      servers.push(server);
      await timeouts.start();
      await timeouts.schedule('work', 'after-retry', { delayMs: 0 });
      await waitUntil(() => fired.includes('after-retry'), 10_000, 'the timeout to fire');
    } finally {
      await timeouts.stop({ drainMs: 0 });
    }
  });
});

describe('stop while Redis is down', () => {
  const commandTimeoutMs = 1_000;

  /** A Redis server of the test's own, and the app serving the `work` topic on it. */
  async function serve(env: Record<string, string>): Promise<{ app: App; server: RedisServer; prefix: string }> {
    const server = await RedisServer.start();
    servers.push(server);
    const prefix = uniquePrefix();
    const app = startApp({ MODE: 'serve', REDIS_URL: server.url, PREFIX: prefix, COMMAND_TIMEOUT_MS: String(commandTimeoutMs), ...env });
    await waitUntil(() => app.find('ready') !== undefined, 20_000, 'the app to be ready');
    return { app, server, prefix };
  }

  it('with no handler running: returns within commandTimeoutMs (not drainMs) and the process ends by itself', async () => {
    const drainMs = 10_000;
    const { app, server } = await serve({ DRAIN_MS: String(drainMs), SWEEP_MS: '200' });
    await server.kill();
    // A sweep claim waits for the dead Redis, and the connection has failed to come back for a while
    // (its reconnect backoff at its cap, the wake-up subscriber rotated several times).
    await waitUntil(() => app.find('claim-waiting') !== undefined && app.connectionErrors >= 6, 20_000, `a claim waiting on a long outage: ${JSON.stringify(app.messages)}`);
    const terminatedAt = performance.now();
    app.signal('SIGTERM');
    const exitedAt = await exitWithin(app, 15_000);
    expect(app.find('stopped')?.stopMs).toBeLessThan(commandTimeoutMs + 250);
    expect(exitedAt).not.toBeNull();
    // stop() itself is held to commandTimeoutMs above; the process's own teardown after it is
    // not the library's (it took 2.6 s once on a loaded machine): it must just not wait drainMs.
    expect(exitedAt! - terminatedAt).toBeLessThan(drainMs / 2);
  });

  it.each([
    ['killed (connections refused)', (server: RedisServer) => server.kill()],
    ['paused (connected, never answering)', async (server: RedisServer) => server.pause()],
  ])(
    'Redis %s and a handler ignoring its signal: returns within drainMs + commandTimeoutMs and the process ends by itself',
    async (_outage, outage) => {
      const drainMs = 1_500;
      const { app, server, prefix } = await serve({ DRAIN_MS: String(drainMs) });
      const producer = new DurableTimeouts({ connection: server.url, prefix, topics: { work: { slots: 2 } }, logger: null });
      try {
        await producer.schedule('work', 'hang-1', { delayMs: 0 });
      } finally {
        await producer.stop({ drainMs: 0 });
      }
      await waitUntil(() => app.find('started') !== undefined, 10_000, 'the handler to start');
      await outage(server);
      const terminatedAt = performance.now();
      app.signal('SIGTERM');
      const exitedAt = await exitWithin(app, 20_000);
      expect(app.find('stopped')?.stopMs).toBeLessThan(drainMs + commandTimeoutMs + 250);
      expect(exitedAt).not.toBeNull();
      expect(exitedAt! - terminatedAt).toBeLessThan(drainMs + commandTimeoutMs + 4_000);
    },
  );
});
