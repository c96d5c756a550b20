import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RedisServer } from '@durable-timeout/redis-testing';
import { TimeoutScheduler } from '@durable-timeout/nestjs';
import { AppModule } from './fixtures/quick-start.js';
import { repoRoot } from './support/build-fixtures.js';
import { uniquePrefix, waitFor } from './support/wait-for.js';

const START = '<!-- nest-quick-start:start -->';
const END = '<!-- nest-quick-start:end -->';

describe('README quick start', () => {
  it('README.md shows e2e/fixtures/quick-start.ts verbatim between its markers', () => {
    const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
    const source = readFileSync(new URL('./fixtures/quick-start.ts', import.meta.url), 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const section = readme.slice(start + START.length, end);
    const block = /```ts\n([\s\S]*?)```/.exec(section);
    expect(block?.[1]).toBe(source);
  });

  describe('the quick-start application against a real Redis', () => {
    let redis: RedisServer;
    let app: INestApplication;
    const saved = { ...process.env };

    beforeAll(async () => {
      redis = await RedisServer.start();
      process.env['REDIS_URL'] = redis.url;
      process.env['TIMEOUT_PREFIX'] = uniquePrefix('quick-start');
      process.env['PAYMENT_TIMEOUT_MS'] = '3000';
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
      app = moduleRef.createNestApplication({ logger: ['error', 'warn'] });
      await app.init();
      await app.get(TimeoutScheduler).waitUntilReady();
    });

    afterAll(async () => {
      await app?.close();
      await redis?.stop();
      for (const key of ['REDIS_URL', 'TIMEOUT_PREFIX', 'PAYMENT_TIMEOUT_MS']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    });

    it('times out an unpaid order through the @OnTimeout handler, and not a paid one', async () => {
      const server = app.getHttpServer();
      await request(server).post('/orders/unpaid').expect(201);
      await request(server).post('/orders/paid').expect(201);
      expect((await request(server).post('/orders/paid/pay').expect(201)).body).toEqual({ paid: true });

      await waitFor('the unpaid order to time out', async () => {
        const { body } = await request(server).get('/orders/unpaid');
        return body.status === 'PAYMENT_TIMEOUT';
      });
      expect((await request(server).get('/orders/paid').expect(200)).body).toEqual({ id: 'paid', status: 'PAID' });
      expect(await app.get(TimeoutScheduler).get('payment', 'paid')).toBeNull();
    });

    it('reports the durable-timeout health check through Terminus', async () => {
      const { body } = await request(app.getHttpServer()).get('/health').expect(200);
      expect(body.status).toBe('ok');
      expect(body.info['durable-timeout']).toMatchObject({ status: 'up', running: true, topics: { payment: expect.any(Object) } });
    });
  });
});
