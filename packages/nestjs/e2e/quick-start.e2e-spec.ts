import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { freePort, RedisServer } from '@durable-timeout/redis-testing';
import { buildFixtures, fixturesDist, repoRoot } from './support/build-fixtures.js';
import { uniquePrefix, waitFor } from './support/wait-for.js';

/**
 * The README's Nest quick start, run as written: e2e/fixtures/quick-start.ts is the README's code
 * block (scripts/test/readme.spec.ts checks they are the same text), compiled and started with
 * `node`, so its own `bootstrap()` call starts the app.
 */
describe('README quick start, started as a program against a real Redis', () => {
  let redis: RedisServer;
  let app: ChildProcessWithoutNullStreams;
  let url: string;
  let output = '';

  const http = async (method: 'GET' | 'POST', path: string): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${path}`, { method });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    await buildFixtures();
    redis = await RedisServer.start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // Under the Nest 11 run the program resolves @nestjs/* from the Nest 11 install too.
    const hook = process.env['DURABLE_TIMEOUT_NEST_IMPORT'];
    app = spawn(process.execPath, [...(hook ? ['--import', hook] : []), `${fixturesDist}quick-start.js`], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: '', REDIS_URL: redis.url, TIMEOUT_PREFIX: uniquePrefix('quick-start'), PAYMENT_TIMEOUT_MS: '1000', PORT: String(port) },
      stdio: 'pipe',
    });
    app.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    app.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(`the quick start to listen on ${url} (output so far: ${output})`, () => http('GET', '/health').then((answer) => answer.status === 200, () => false), 30_000);
  }, 300_000);

  afterAll(async () => {
    if (app && app.exitCode === null && app.signalCode === null) {
      const exited = new Promise((resolve) => app.once('exit', resolve));
      app.kill('SIGTERM');
      await exited;
    }
    await redis?.stop();
  });

  it('times out an unpaid order through the @OnTimeout handler, and not a paid one', async () => {
    expect((await http('POST', '/orders/unpaid')).status).toBe(201);
    expect((await http('POST', '/orders/paid')).status).toBe(201);
    expect((await http('POST', '/orders/paid/pay')).body).toEqual({ paid: true });
    await waitFor('the unpaid order to time out', async () => (await http('GET', '/orders/unpaid')).body?.status === 'PAYMENT_TIMEOUT');
    expect(await http('GET', '/orders/paid')).toEqual({ status: 200, body: { id: 'paid', status: 'PAID' } });
  });

  it('reports the durable-timeout health check through Terminus', async () => {
    const { status, body } = await http('GET', '/health');
    expect(status).toBe(200);
    expect(body.info['durable-timeout']).toMatchObject({ status: 'up', running: true, topics: { payment: expect.any(Object) } });
  });

  it('shuts down on SIGTERM through the shutdown hooks', async () => {
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => app.once('exit', (code, signal) => resolve({ code, signal })));
    app.kill('SIGTERM');
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(output).not.toMatch(/\bERROR\b/);
  });
});
