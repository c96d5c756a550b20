import { beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { eventually } from '@durable-timeout/sample-app-support';
import { run, runOrFail } from './support/commands.js';
import { ConsumerFixture } from './support/fixture.js';
import { NestAppProcess } from './support/nest-app.js';
import { packedTarballs, type Tarballs } from './support/packs.js';

/**
 * The published packages as users get them: `npm pack` tarballs installed into four consumer
 * projects (consumers/README.md), each compiled with its own TypeScript, booted on the Node that
 * runs this spec against a real Redis, and tested with its own Jest set-up. `npm test` runs this
 * file on the default Node, on Node 22 and on Node 24.
 */
const nestFixtures = [
  { name: 'nest12-esm', label: '(a) Nest 12, ESM, TypeScript 6, ioredis 6', format: 'esm', vmModules: true, ioredis: 6 },
  { name: 'nest11-cjs-classic', label: '(b) Nest 11, CommonJS, classic tsconfig (node10 resolution), TypeScript 5.0, ioredis 5', format: 'commonjs', vmModules: false, ioredis: 5 },
  { name: 'nest11-cjs', label: '(c) Nest 11 as `nest new` generates it (CommonJS, nodenext), TypeScript 5.9, ioredis 6', format: 'commonjs', vmModules: false, ioredis: 6 },
] as const;

let tarballs: Tarballs;

/**
 * The major version of the ioredis the project resolves, and how many copies the project and the
 * given packages resolve (1: the packages share the project's, as a peer dependency makes them).
 */
async function ioredisOf(dir: string, packages: readonly string[]): Promise<{ major: number; copies: number }> {
  const probe = `
    const from = (name) => require.resolve('ioredis', { paths: [require.resolve(name + '/package.json')] });
    const files = new Set([require.resolve('ioredis'), ...${JSON.stringify(packages)}.map(from)]);
    console.log(JSON.stringify({ major: Number(require('ioredis/package.json').version.split('.')[0]), copies: files.size }));`;
  const output = await runOrFail(process.execPath, ['-e', probe], dir);
  return JSON.parse(output.trim().split('\n').pop()!) as { major: number; copies: number };
}

beforeAll(async () => {
  tarballs = await packedTarballs();
}, 300_000);

describe.each(nestFixtures)(`consumer $label on Node ${process.versions.node}`, ({ name, format, vmModules, ioredis }) => {
  const fixture = new ConsumerFixture(name);

  beforeAll(async () => {
    fixture.copyNestApp(format);
    await fixture.install({ '@durable-timeout/core': tarballs['@durable-timeout/core'], '@durable-timeout/nestjs': tarballs['@durable-timeout/nestjs'] });
  }, 300_000);

  it('compiles with tsc', async () => {
    await fixture.build();
  }, 120_000);

  it(`runs on ioredis ${ioredis}, one copy shared by the application and the packages`, async () => {
    expect(await ioredisOf(fixture.dir, ['@durable-timeout/core', '@durable-timeout/nestjs'])).toEqual({ major: ioredis, copies: 1 });
  }, 30_000);

  it('boots against a real Redis: @OnTimeout fires, Terminus is up, bad input is a 400; Redis down: 503 with Retry-After, health down', async () => {
    const redis = await RedisServer.start();
    const app = await NestAppProcess.start(fixture.dir, { REDIS_URL: redis.url, TIMEOUT_PREFIX: `consumer-${name}`, PAYMENT_TIMEOUT_MS: '300' });
    try {
      await app.ready();
      expect((await app.post('/orders/unpaid')).status).toBe(201);
      expect((await app.post('/orders/paid')).status).toBe(201);
      expect((await app.post('/orders/paid/pay')).body).toEqual({ paid: true });
      await eventually(() => app.get('/orders/unpaid'), (answer) => answer.body?.status === 'PAYMENT_TIMEOUT');
      expect((await app.get('/orders/paid')).body).toEqual({ id: 'paid', status: 'PAID' });

      const health = await app.get('/health');
      expect({ status: health.status, timeouts: health.body.info.timeouts.status }).toEqual({ status: 200, timeouts: 'up' });

      const badDelay = await app.post('/orders/bad?delayMs=-1');
      expect({ status: badDelay.status, message: badDelay.body.message }).toEqual({ status: 400, message: expect.stringContaining('Invalid delayMs -1') });

      await redis.kill();
      const unavailable = await app.post('/orders/later');
      expect({ status: unavailable.status, retryAfter: unavailable.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '5' });
      const down = await app.get('/health');
      expect({ status: down.status, timeouts: down.body.error.timeouts.status }).toEqual({ status: 503, timeouts: 'down' });
      expect(await app.stop()).toEqual({ code: null, signal: 'SIGTERM' });
      expect(app.log).not.toMatch(/ERROR.*(DurableTimeouts|shutdown)/i);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- app output ---\n${app.log}`, { cause: error });
    } finally {
      await app.stop();
      await redis.stop();
    }
  }, 90_000);

  it(`runs its own Jest suite with DurableTimeoutTestingModule${vmModules ? ' (Jest ESM mode)' : ', without --experimental-vm-modules'}`, async () => {
    expect(fixture.manifest.scripts['test']!.includes('--experimental-vm-modules')).toBe(vmModules);
    expect(await fixture.npmRun('test')).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 120_000);
});

describe(`consumer (d) plain Node, CommonJS require('@durable-timeout/core'), and the command line, on Node ${process.versions.node}`, () => {
  const fixture = new ConsumerFixture('node-cjs');

  beforeAll(async () => {
    await fixture.install({ '@durable-timeout/core': tarballs['@durable-timeout/core'], '@durable-timeout/cli': tarballs['@durable-timeout/cli'] });
  }, 300_000);

  it('type-checks with tsc 7 (checkJs against the CommonJS types)', async () => {
    expect(await runOrFail('npx', ['tsc', '--version'], fixture.dir)).toMatch(/Version 7\./);
    await fixture.build();
  }, 120_000);

  it.each([
    { build: 'esm', flags: [] },
    { build: 'cjs', flags: ['--no-experimental-require-module'] },
  ])('schedules and fires against a real Redis, loading the $build build', async ({ build, flags }) => {
    const redis = await RedisServer.start();
    try {
      const resolved = await runOrFail(process.execPath, [...flags, '-p', "require.resolve('@durable-timeout/core')"], fixture.dir);
      expect(resolved.trim()).toMatch(new RegExp(`/@durable-timeout/core/dist/${build}/index\\.js$`));
      const output = await runOrFail(process.execPath, [...flags, 'index.js'], fixture.dir, { REDIS_URL: redis.url, TIMEOUT_PREFIX: `consumer-node-${build}` });
      const steps = output.trim().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(steps).toEqual([
        { step: 'scheduled', status: 'PENDING' },
        { step: 'fired', status: 'PAYMENT_TIMEOUT' },
        { step: 'health', running: true, redisUp: true },
        { step: 'stopped', redisUnavailableError: 'function' },
      ]);
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it("gets ioredis 6 (the latest) as the core's peer dependency, one copy for the project, the core and the command line", async () => {
    expect(await ioredisOf(fixture.dir, ['@durable-timeout/core', '@durable-timeout/cli'])).toEqual({ major: 6, copies: 1 });
  }, 30_000);

  it('runs the command line installed from its tarball by `npx durable-timeout`: --help, and the stats of what the project scheduled', async () => {
    expect(await runOrFail('npx', ['durable-timeout', '--help'], fixture.dir)).toContain('Usage: durable-timeout [options] [command]');
    const redis = await RedisServer.start();
    try {
      const schedule = `
        const { DurableTimeouts } = require('@durable-timeout/core');
        const timeouts = new DurableTimeouts({ connection: process.env.REDIS_URL, prefix: 'consumer-cli', topics: { payment: { slots: 4 } }, logger: null });
        (async () => {
          for (const id of ['order-1', 'order-2', 'order-3']) await timeouts.schedule('payment', id, { delayMs: 3600000 });
          await timeouts.stop({ drainMs: 0 });
        })();`;
      await runOrFail(process.execPath, ['-e', schedule], fixture.dir, { REDIS_URL: redis.url });
      const stats = await runOrFail('npx', ['durable-timeout', 'stats', '--json'], fixture.dir, { REDIS_URL: redis.url, DT_PREFIX: 'consumer-cli' });
      // npx may print this machine's npm warnings first (output and errors are read together).
      const json = stats.split('\n').filter((line) => !/^npm (warn|notice)/i.test(line)).join('\n');
      expect(JSON.parse(json).topics).toEqual([expect.objectContaining({ topic: 'payment', pending: 3 })]);
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it('runs its own Jest suite (createTestingTimeouts from @durable-timeout/core/testing), without --experimental-vm-modules', async () => {
    expect(fixture.manifest.scripts['test']).toBe('jest');
    expect(await fixture.npmRun('test')).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 120_000);
});

describe('the dual-package hazard (one process loading both builds)', () => {
  const entryPoints = ['@durable-timeout/nestjs', '@durable-timeout/nestjs/terminus', '@durable-timeout/nestjs/testing', '@durable-timeout/core'];
  /** Prints, per entry point, whether require() and import() gave the very same exports, and which file require() loaded. */
  const probe = `
    const entries = ${JSON.stringify(entryPoints)};
    (async () => {
      const out = {};
      for (const name of entries) {
        const required = require(name);
        const imported = await import(name);
        const names = Object.keys(imported).filter((key) => key !== 'default' && key !== 'module.exports');
        out[name] = { exports: names.length, same: names.every((key) => required[key] === imported[key]), file: require.resolve(name).split('/dist/')[1] };
      }
      console.log(JSON.stringify(out));
    })();`;

  async function probeIn(flags: string[]): Promise<Record<string, { exports: number; same: boolean; file: string }>> {
    const fixture = new ConsumerFixture('nest11-cjs');
    await fixture.install({ '@durable-timeout/core': tarballs['@durable-timeout/core'], '@durable-timeout/nestjs': tarballs['@durable-timeout/nestjs'] });
    // The packages only: the probe needs no sources of the project.
    const result = await run(process.execPath, [...flags, '-e', probe], fixture.dir);
    expect(result.code).toBe(0);
    return JSON.parse(result.output.trim().split('\n').pop()!) as Record<string, { exports: number; same: boolean; file: string }>;
  }

  it('does not arise on Node with require(esm): require() and import() get one copy (the ESM build, "module-sync")', async () => {
    const seen = await probeIn([]);
    for (const name of entryPoints) expect({ name, ...seen[name] }).toEqual({ name, exports: expect.any(Number), same: true, file: expect.stringMatching(/^esm\//) });
  }, 120_000);

  it('where require(esm) is off, require() gets the CommonJS build: two copies whose classes differ (keep one import style there)', async () => {
    const seen = await probeIn(['--no-experimental-require-module']);
    for (const name of entryPoints) expect({ name, ...seen[name] }).toEqual({ name, exports: expect.any(Number), same: false, file: expect.stringMatching(/^cjs\//) });
  }, 120_000);
});
