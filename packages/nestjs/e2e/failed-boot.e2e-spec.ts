import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort } from '@durable-timeout/redis-testing';
import { buildFixtures, fixturesDist, repoRoot } from './support/build-fixtures.js';
import { waitFor } from './support/wait-for.js';

/** The fixture app in a child process: its stdout events, and when it ended (`performance.now()`). */
class ChildApp {
  readonly events: { event: string; error?: string }[] = [];
  readonly exited: Promise<number>;
  private stderr = '';

  constructor(readonly process: ChildProcessWithoutNullStreams) {
    createInterface({ input: process.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as { event: string; error?: string });
      } catch {
        // not one of ours
      }
    });
    process.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => process.once('exit', () => resolve(performance.now())));
  }

  get errors(): string {
    return this.stderr;
  }
}

const children: ChildApp[] = [];

function startChild(env: Record<string, string>): ChildApp {
  // Under the Nest 11 compatibility run the child resolves @nestjs/* from the scratch install too.
  const hook = process.env['DURABLE_TIMEOUT_NEST_IMPORT'];
  const args = [...(hook ? ['--import', hook] : []), `${fixturesDist}failed-boot-app.js`];
  const child = new ChildApp(spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: 'pipe' }));
  children.push(child);
  return child;
}

/** `performance.now()` at exit, or null when the process still runs after `ms`. */
async function exitWithin(child: ChildApp, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  const result = await Promise.race([child.exited, late]);
  clearTimeout(timer);
  return result;
}

describe('a Nest application whose bootstrap failed and was caught', () => {
  beforeAll(async () => {
    await buildFixtures();
  }, 300_000);

  afterAll(() => {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  });

  it.each([
    ['Redis is unreachable (start fails)', 'redis-down', 'RedisUnavailableError'],
    ['two handlers for one topic (discovery fails)', 'duplicate-handler', 'DuplicateTimeoutHandlerError'],
  ])('ends by itself when %s: the module left nothing open', async (_case, mode, errorName) => {
    const port = await freePort();
    const child = startChild({ MODE: mode, REDIS_URL: `redis://127.0.0.1:${port}` });
    const failed = await waitFor(`the boot to fail ${child.errors}`, () => child.events.find((event) => event.event === 'boot-failed'), 30_000);
    expect(failed.error).toBe(errorName);
    const failedAt = performance.now();
    const exitedAt = await exitWithin(child, 5_000);
    expect(exitedAt).not.toBeNull();
    expect(exitedAt! - failedAt).toBeLessThan(5_000);
  });
});
