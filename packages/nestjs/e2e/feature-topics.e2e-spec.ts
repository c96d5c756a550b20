import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import {
  DurableTimeoutModule,
  InvalidModuleOptionsError,
  OnTimeout,
  TimeoutScheduler,
  TopicDeclarationConflictError,
  type TimeoutEvent,
} from '@durable-timeout/nestjs';
import { uniquePrefix, waitFor } from './support/wait-for.js';

interface RefundDeadline {
  orderId: string;
}

const refunds: TimeoutEvent<RefundDeadline>[] = [];

@Injectable()
class RefundTimeouts {
  @OnTimeout('refund')
  onRefund(event: TimeoutEvent<RefundDeadline>): void {
    refunds.push(event);
  }
}

/** A feature module that owns its topic: declared here, handled here, nowhere in forRoot. */
@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { refund: { maxAttempts: 2, slots: 2 } } })], providers: [RefundTimeouts] })
class RefundsModule {}

@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 5 } } })] })
class OrdersModule {}

@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 3 } } })] })
class BillingModule {}

@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 5 } } })] })
class InvoicesModule {}

describe('DurableTimeoutModule.forFeature against a real Redis', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await RedisServer.start();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  const root = (topics?: Record<string, object>) =>
    DurableTimeoutModule.forRoot({ connection: redis.url, prefix: uniquePrefix('feature'), drainMs: 0, isGlobal: true, logger: null, ...(topics ? { topics } : {}) });

  it('adds the topics of every feature module to the engine, and fires a handler of a feature topic', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [root({ reminder: {} }), RefundsModule, OrdersModule] }).compile();
    const app = await moduleRef.init();
    try {
      const scheduler: TimeoutScheduler<{ refund: RefundDeadline; reminder: null; payment: null }> = app.get(TimeoutScheduler);
      await scheduler.waitUntilReady();
      expect(Object.keys(scheduler.engine.settings.topics).sort()).toEqual(['payment', 'refund', 'reminder']);
      // The feature's options are the topic's options.
      expect(scheduler.engine.settings.topics.refund).toMatchObject({ maxAttempts: 2, slots: 2 });
      expect(scheduler.engine.settings.topics.payment).toMatchObject({ maxAttempts: 5 });
      await scheduler.schedule('refund', 'order-9', { delayMs: 50, payload: { orderId: 'order-9' } });
      const event = await waitFor('the refund timeout to fire', () => refunds.find((e) => e.id === 'order-9'));
      expect(event).toMatchObject({ topic: 'refund', payload: { orderId: 'order-9' }, attempt: 1 });
    } finally {
      await app.close();
    }
  });

  it('needs no topics in forRoot when the features declare them', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [root(), OrdersModule] }).compile();
    const app = await moduleRef.init();
    try {
      const scheduler = app.get(TimeoutScheduler);
      expect(scheduler.engine.topics).toEqual(['payment']);
      expect(await scheduler.schedule('payment', 'order-1', { delayMs: 60_000 })).toMatchObject({ outcome: 'created' });
    } finally {
      await app.close();
    }
  });

  it('takes a topic declared twice with the same options once', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [root({ payment: { maxAttempts: 5 } }), OrdersModule, InvoicesModule] }).compile();
    const app = await moduleRef.init();
    try {
      expect(app.get(TimeoutScheduler).engine.topics).toEqual(['payment']);
    } finally {
      await app.close();
    }
  });

  it('refuses a topic declared twice with different options, naming both modules', async () => {
    const compiling = Test.createTestingModule({ imports: [root(), OrdersModule, BillingModule] }).compile();
    const error = await compiling.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(TopicDeclarationConflictError);
    expect(error).toMatchObject({ topic: 'payment', declaredBy: ['OrdersModule', 'BillingModule'] });
    expect((error as Error).message).toMatch(/Topic 'payment' is declared by OrdersModule and again by BillingModule with different options/);
  });

  it('refuses a root topic declared again by a feature with other options, naming forRoot', async () => {
    const error = await Test.createTestingModule({ imports: [root({ payment: {} }), BillingModule] })
      .compile()
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toMatchObject({ name: 'TopicDeclarationConflictError', declaredBy: ['DurableTimeoutModule.forRoot', 'BillingModule'] });
  });

  it('refuses forFeature options without a topics object at once', () => {
    for (const bad of [undefined, null, [], 'payment']) {
      expect(() => DurableTimeoutModule.forFeature({ topics: bad } as never)).toThrow(InvalidModuleOptionsError);
    }
    expect(() => DurableTimeoutModule.forFeature({ topics: 'payment' } as never)).toThrow(/forFeature\(\.\.\.\) refused: topics is string/);
  });
});
