import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Param, Post, Query, type INestApplication } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import * as core from '@durable-timeout/core';
import { DurabilityUnconfirmedError, DurableTimeoutError, RedisUnavailableError, StoreClosedError, TimeoutsStoppedError, TopicMigratingError } from '@durable-timeout/core';
import * as coreOtel from '@durable-timeout/core/otel';
import * as coreTesting from '@durable-timeout/core/testing';
import * as nestAdmin from './admin/index.js';
import { DURABLE_TIMEOUT_HTTP_ANSWERS, httpAnswerOf } from './durable-timeout-http-errors.js';
import * as nest from './index.js';
import * as nestTesting from './testing/index.js';
import * as nestTerminus from './terminus/index.js';
import { DurableTimeoutExceptionFilter } from './durable-timeout-exception.filter.js';
import { DurableTimeoutTestingModule } from './testing/durable-timeout-testing.module.js';
import { TimeoutScheduler } from './timeout.scheduler.js';

@Controller()
class OrdersController {
  constructor(private readonly timeouts: TimeoutScheduler) {}

  @Post('orders/:id')
  async create(@Param('id') id: string, @Query('delayMs') delayMs: string, @Query('topic') topic = 'payment'): Promise<{ ok: true }> {
    await this.timeouts.schedule(topic, id, { delayMs: Number(delayMs), payload: { id } });
    return { ok: true };
  }

  @Get('redis-down')
  redisDown(): never {
    throw new RedisUnavailableError('schedule did not complete within 1000 ms (redis at 10.0.0.5:6379)', 'schedule');
  }

  @Get('unconfirmed')
  unconfirmed(): never {
    throw new DurabilityUnconfirmedError('"schedule" was applied on the Redis primary but 0 of 1 replica(s) confirmed it', 'schedule', 1, 0);
  }

  @Get('migrating')
  migrating(): never {
    throw new TopicMigratingError('payment', 32, 1000);
  }

  @Get('store-closed')
  storeClosed(): never {
    throw new StoreClosedError('The Redis timeout store was closed; create a new one.');
  }

  @Get('stopping')
  stopping(): never {
    throw new TimeoutsStoppedError('Cannot call schedule(): this DurableTimeouts instance was stopped.');
  }
}

/** A filter with its own Retry-After, as an application may define it. */
class SlowRetryFilter extends DurableTimeoutExceptionFilter {
  protected override readonly retryAfterSeconds = 30;
}

/** Every class exported by the entry points of the core and the Nest package whose instances are errors. */
const EXPORTED_ERROR_CLASSES = [core, coreOtel, coreTesting, nest, nestAdmin, nestTerminus, nestTesting].flatMap((entry) =>
  Object.entries(entry).filter(([, value]) => typeof value === 'function' && (value === Error || value.prototype instanceof Error)),
);

describe('the HTTP answer table of the errors', () => {
  it('lists every exported error class, and every one extends DurableTimeoutError', () => {
    expect(EXPORTED_ERROR_CLASSES.length).toBeGreaterThan(25);
    const missing = EXPORTED_ERROR_CLASSES.filter(([, errorClass]) => !DURABLE_TIMEOUT_HTTP_ANSWERS.has(errorClass as never)).map(([name]) => name);
    expect(missing).toEqual([]);
    const foreign = EXPORTED_ERROR_CLASSES.filter(([, errorClass]) => errorClass !== DurableTimeoutError && !(errorClass.prototype instanceof DurableTimeoutError));
    expect(foreign.map(([name]) => name)).toEqual([]);
  });

  it('marks the errors a retry resolves as retry and the bad request errors as bad-request', () => {
    const answers = Object.fromEntries([...DURABLE_TIMEOUT_HTTP_ANSWERS].map(([errorClass, answer]) => [errorClass.name, answer]));
    expect(Object.keys(answers).filter((name) => answers[name] === 'retry').sort()).toEqual(
      ['DurabilityUnconfirmedError', 'RedisUnavailableError', 'StoreClosedError', 'TimeoutsStoppedError', 'TopicMigratingError'],
    );
    expect(Object.keys(answers).filter((name) => answers[name] === 'bad-request').sort()).toEqual(
      ['InvalidDelayError', 'InvalidPayloadError', 'InvalidScheduleError', 'InvalidTimeoutIdError', 'PayloadTooLargeError'],
    );
  });

  it("answers a subclass an application defines like its nearest listed ancestor, and nothing for others' errors", () => {
    class SlowStoreError extends RedisUnavailableError {}
    expect(httpAnswerOf(new SlowStoreError('slow', 'schedule'))).toBe('retry');
    expect(httpAnswerOf(new Error('x'))).toBeUndefined();
    expect(httpAnswerOf('x')).toBeUndefined();
  });
});

describe('DurableTimeoutExceptionFilter', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start(register: 'provider' | 'global-subclass'): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({
      imports: [DurableTimeoutTestingModule.forRoot({ topics: { payment: { maxPayloadBytes: 64 } } })],
      controllers: [OrdersController],
      providers: register === 'provider' ? [{ provide: APP_FILTER, useClass: DurableTimeoutExceptionFilter }] : [],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    if (register === 'global-subclass') app.useGlobalFilters(new SlowRetryFilter(app.get(HttpAdapterHost).httpAdapter));
    await app.init();
    return app;
  }

  it('answers 400 with the error message for a bad delay, id or payload, and stores nothing', async () => {
    const server = (await start('provider')).getHttpServer();
    const badDelay = await request(server).post('/orders/o-1?delayMs=-5').expect(400);
    expect(badDelay.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('Invalid delayMs -5') });
    const badId = await request(server).post(`/orders/${'x'.repeat(2_000)}?delayMs=1000`).expect(400);
    expect(badId.body.message).toMatch(/^Invalid timeout id: 2000 characters/);
    const tooLarge = await request(server).post(`/orders/${'y'.repeat(100)}?delayMs=1000`).expect(400);
    expect(tooLarge.body.message).toMatch(/over its maxPayloadBytes 64/);
    expect(badDelay.headers['retry-after']).toBeUndefined();
    expect(await app!.get(TimeoutScheduler).get('payment', 'o-1')).toBeNull();
    await request(server).post('/orders/o-2?delayMs=1000').expect(201);
  });

  it('answers 503 with Retry-After when Redis is unavailable, without Redis details', async () => {
    const response = await request((await start('provider')).getHttpServer()).get('/redis-down').expect(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.stringMatching(/^Timeouts cannot be stored/) });
    expect(JSON.stringify(response.body)).not.toContain('10.0.0.5');
  });

  it('answers 503 with Retry-After when the replicas did not confirm a write (durability option)', async () => {
    const response = await request((await start('provider')).getHttpServer()).get('/unconfirmed').expect(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body.message).toMatch(/^Timeouts cannot be stored/);
  });

  it('answers 503 with Retry-After while the instance shuts down', async () => {
    const response = await request((await start('provider')).getHttpServer()).get('/stopping').expect(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body.message).toMatch(/shutting down/);
  });

  it('answers 503 with Retry-After while a slot migration moves the slot, or the store is closed', async () => {
    const server = (await start('provider')).getHttpServer();
    const migrating = await request(server).get('/migrating').expect(503);
    expect(migrating.headers['retry-after']).toBe('5');
    expect(migrating.body.message).toMatch(/slot count/);
    const closed = await request(server).get('/store-closed').expect(503);
    expect(closed.headers['retry-after']).toBe('5');
    expect(closed.body.message).toMatch(/shutting down/);
  });

  it('leaves other errors to Nest: an unknown topic is a bug of the application (500)', async () => {
    const response = await request((await start('provider')).getHttpServer()).post('/orders/o-3?delayMs=1000&topic=nope').expect(500);
    expect(response.body).toEqual({ statusCode: 500, message: 'Internal server error' });
  });

  it('works as a global filter created with the HTTP adapter, and a subclass sets its own Retry-After', async () => {
    const server = (await start('global-subclass')).getHttpServer();
    expect((await request(server).get('/redis-down').expect(503)).headers['retry-after']).toBe('30');
    await request(server).post('/orders/o-4?delayMs=NaN').expect(400);
  });
});
