import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import { DurableTimeoutModule, OnTimeout, TimeoutScheduler, type TimeoutEvent } from '@durable-timeout/nestjs';
import { buildFixtures, fixturesDist, repoRoot } from './support/build-fixtures.js';
import { uniquePrefix, waitFor } from './support/wait-for.js';

const DRAIN_MS = 1_500;
const LEASE_MS = 60_000;

interface ChildEvent {
  event: string;
  at: number;
  id?: string;
  attempt?: number;
  fencingToken?: number;
  code?: number;
  nestCommonJs?: boolean;
}

/** The fixture app in a child process, with its stdout events. */
class ChildApp {
  readonly events: ChildEvent[] = [];
  /** Nest's log lines (stdout lines that are not events). */
  readonly logLines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  private stderr = '';

  constructor(readonly process: ChildProcessWithoutNullStreams) {
    createInterface({ input: process.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as ChildEvent);
      } catch {
        this.logLines.push(line);
      }
    });
    process.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => process.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  }

  has(event: string, id?: string): ChildEvent | undefined {
    return this.events.find((e) => e.event === event && (id === undefined || e.id === id));
  }

  get errors(): string {
    return this.stderr;
  }
}

function startChild(env: Record<string, string>): ChildApp {
  // Under the Nest 11 compatibility run the child resolves @nestjs/* from the scratch install too.
  const hook = process.env['DURABLE_TIMEOUT_NEST_IMPORT'];
  const args = [...(hook ? ['--import', hook] : []), `${fixturesDist}drain-app.js`];
  return new ChildApp(
    spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: 'pipe' }),
  );
}

/** What the in-process instance fired. */
const fired: TimeoutEvent[] = [];

@Injectable()
class StandbyWork {
  @OnTimeout('work')
  onWork(event: TimeoutEvent): void {
    fired.push(event);
  }
}

describe('SIGTERM mid-handler in a child-process Nest app (enableShutdownHooks)', () => {
  let redis: RedisServer;
  let child: ChildApp | undefined;
  let standby: INestApplicationContext | undefined;

  beforeAll(async () => {
    [redis] = await Promise.all([RedisServer.start(), buildFixtures()]);
  }, 300_000);

  afterAll(async () => {
    if (child && child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    await standby?.close();
    await redis?.stop();
  });

  it('drains within drainMs and the other instance fires what it could not finish, long before the lease', async () => {
    const prefix = uniquePrefix('drain');
    child = startChild({ REDIS_URL: redis.url, PREFIX: prefix, DRAIN_MS: String(DRAIN_MS), LEASE_MS: String(LEASE_MS) });
    const ready = await waitFor(`the child app to be ready ${child.errors}`, () => child!.has('ready'), 30_000);
    // The compatibility run maps @nestjs/* to Nest 11 in the child too.
    expect(ready.nestCommonJs).toBe(process.env['DURABLE_TIMEOUT_EXPECT_NEST'] === '11');

    // Only the child fires for now: these two are claimed (leased for 60 s) by it.
    const producer = await Test.createTestingModule({
      imports: [DurableTimeoutModule.forRoot({ connection: redis.url, prefix, topics: { work: { slots: 2, leaseMs: LEASE_MS } } })],
    }).compile();
    await producer.init();
    const scheduler = producer.get(TimeoutScheduler);
    await scheduler.schedule('work', 'quick', { delayMs: 0, payload: { afterSigtermMs: 200 } });
    await scheduler.schedule('work', 'stuck', { delayMs: 0, payload: { block: true } });
    await waitFor('the child to start both handlers', () => child!.has('started', 'quick') && child!.has('started', 'stuck'));
    await producer.close();

    // The standby instance runs pollers, but both timeouts are leased to the child.
    const standbyRef = await Test.createTestingModule({
      imports: [DurableTimeoutModule.forRoot({ connection: redis.url, prefix, topics: { work: { slots: 2, leaseMs: LEASE_MS } } })],
      providers: [StandbyWork],
    }).compile();
    standby = await standbyRef.init();
    expect((await standby.get(TimeoutScheduler).get('work', 'stuck'))?.state).toBe('firing');

    const terminatedAt = Date.now();
    child.process.kill('SIGTERM');
    const exit = await child.exited;

    // Drained: the quick handler finished, the stuck one was aborted after drainMs, then the process ended.
    expect(child.has('finished', 'quick')).toBeDefined();
    expect(child.has('aborted', 'stuck')).toBeDefined();
    expect(child.has('aborted', 'stuck')!.at - terminatedAt).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    expect(exit.at - terminatedAt).toBeLessThan(DRAIN_MS + 5_000);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);

    // The drain told what it did through the Nest logger: once when it started, once when it ended; no payload.
    const drainLines = child.logLines.filter((line) => /\[DurableTimeouts\].*(Shutting down|Drained)/.test(line));
    expect(drainLines).toEqual([
      expect.stringMatching(new RegExp(`Shutting down: no new timeouts are claimed; waiting up to ${DRAIN_MS} ms`)),
      expect.stringMatching(/Drained in \d+ ms: 1 of 2 running handler\(s\) finished, 1 still running at drainMs had their signal aborted; 1 timeout\(s\) handed back/),
    ]);
    expect(child.logLines.join('\n')).not.toMatch(/afterSigtermMs|block/);

    // Released as due now: the standby fires it at once, not after the 60 s lease.
    const event = await waitFor('the standby instance to fire the released timeout', () => fired.find((e) => e.id === 'stuck'), LEASE_MS / 4);
    expect(Date.now() - terminatedAt).toBeLessThan(LEASE_MS / 4);
    expect(event.fencingToken).toBeGreaterThan(child.has('started', 'stuck')!.fencingToken!);
    expect(fired.map((e) => e.id)).toEqual(['stuck']);
    const standbyScheduler = standby.get(TimeoutScheduler);
    await waitFor('the fired timeout to be acknowledged', async () => (await standbyScheduler.get('work', 'stuck')) === null);
    expect(await standbyScheduler.get('work', 'quick')).toBeNull();
  });
});
