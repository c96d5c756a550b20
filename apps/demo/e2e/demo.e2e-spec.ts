import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisServer, waitUntil } from '@durable-timeout/redis-testing';

// The demo is a program: these tests build it and the orders app, run it as a user does and read
// what it prints and writes. The full run uses a Redis of the test's own through REDIS_URL (to check
// that the demo leaves other data alone and its own keys behind it); the Ctrl-C run lets the demo
// start its throwaway redis-server.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const demoMain = join(root, 'apps/demo/dist/main.js');

interface DemoRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface ModeFiguresJson {
  mode: string;
  created: number;
  paid: number;
  timedOut: number;
  stuck: number;
  duplicateTransitions: number;
  unreadable: number;
  worstLatenessMs: number | null;
  latePayments: { attempted: number; refused: number; confirmed: number };
  sigterms: number;
  sigkills: number;
}

let workDir: string;
let redis: RedisServer | undefined;

function startDemo(
  args: string[],
  redisUrl?: string,
): { child: ChildProcess; done: Promise<DemoRun>; stdoutSoFar: () => string } {
  const env = { ...process.env };
  delete env.REDIS_URL;
  delete env.ORDERS_APP_ENTRY;
  if (redisUrl) env.REDIS_URL = redisUrl;
  const child = spawn(process.execPath, [demoMain, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<DemoRun>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, stdoutSoFar: () => stdout };
}

function portsIn(output: string): number[] {
  return [...output.matchAll(/(?:port |127\.0\.0\.1:)(\d{2,5})/g)].map((match) => Number(match[1]));
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run demo (apps/demo)', () => {
  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'demo-e2e-'));
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }, 180_000);

  afterAll(async () => {
    await redis?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('shows 0 stuck / 0 duplicates in durable mode and stuck orders in legacy mode, then exits 0', async () => {
    redis = await RedisServer.start();
    const client = redis.client();
    await client.set('someone-else:key', 'untouched');
    const jsonFile = join(workDir, 'figures.json');
    const run = await startDemo(['--orders', '40', '--json', jsonFile], redis.url).done;
    if (run.code !== 0) throw new Error(`demo exited ${run.code ?? run.signal}\n${run.stdout}\n${run.stderr}`);
    expect(run.stdout).toContain(`Redis: REDIS_URL ${redis.url}`);
    expect(await client.keys('*')).toEqual(['someone-else:key']);
    expect(await client.get('someone-else:key')).toBe('untouched');

    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { modes: ModeFiguresJson[]; verdict: { ok: boolean } };
    const legacy = report.modes.find((figures) => figures.mode === 'legacy');
    const durable = report.modes.find((figures) => figures.mode === 'durable');
    expect(report.verdict.ok).toBe(true);

    expect(durable).toMatchObject({ created: 40, stuck: 0, duplicateTransitions: 0, unreadable: 0, sigterms: 2, sigkills: 1 });
    expect(durable!.paid + durable!.timedOut).toBe(40);
    expect(durable!.paid).toBeGreaterThan(0);
    expect(durable!.latePayments.refused).toBe(durable!.latePayments.attempted);
    expect(durable!.worstLatenessMs).not.toBeNull();

    expect(legacy).toMatchObject({ created: 40, duplicateTransitions: 0 });
    expect(legacy!.stuck).toBeGreaterThan(0);

    const stuckRow = run.stdout.split('\n').find((line) => line.startsWith('stuck in PENDING_PAYMENT'));
    expect(stuckRow?.trim().split(/\s+/).slice(-2)).toEqual([String(legacy!.stuck), '0']);
    expect(run.stdout).toMatch(/^PASS: durable mode: 0 stuck, 0 duplicate transitions/m);

    const instancePorts = portsIn(run.stdout).filter((port) => port !== redis!.port);
    expect(instancePorts.length).toBe(10);
    for (const port of instancePorts) expect(await acceptsConnections(port)).toBe(false);
  }, 90_000);

  it('on Ctrl-C stops every orders instance and the Redis it started, and exits 130', async () => {
    const demo = startDemo(['--orders', '20']);
    await waitUntil(() => /placing 20 orders/.test(demo.stdoutSoFar()), 45_000);
    const ports = portsIn(demo.stdoutSoFar());
    expect(ports.length).toBe(3);
    for (const port of ports) expect(await acceptsConnections(port)).toBe(true);

    demo.child.kill('SIGINT');
    const run = await demo.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('SIGINT: stopping');
    for (const port of ports) expect(await acceptsConnections(port)).toBe(false);
  }, 60_000);
});
