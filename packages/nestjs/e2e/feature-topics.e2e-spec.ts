import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { LazyModuleLoader } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { RedisServer } from '@durable-timeout/redis-testing';
import {
  DurableTimeoutModule,
  InvalidModuleOptionsError,
  OnTimeout,
  TimeoutScheduler,
  TopicDeclarationConflictError,
  UnregisteredFeatureTopicsError,
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

@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { late: {} } })] })
class LateModule {}

@Module({ imports: [DurableTimeoutModule.forFeature({ topics: { refund: { maxAttempts: -1 } } })] })
class BadOptionsModule {}

@Module({
  imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 5 } } }), DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 6 } } })],
})
class TwiceModule {}

@Injectable()
class Loader {
  constructor(readonly lazy: LazyModuleLoader) {}
}

/** The error a call throws or rejects with (undefined when it resolves); Nest 11's init may throw at once. */
const rejectionOf = (call: () => Promise<unknown>): Promise<unknown> =>
  Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (reason: unknown) => reason,
    );

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

  it('fails the init of a feature whose application has no forRoot, naming its topics', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [OrdersModule] }).compile();
    const error = await rejectionOf(() => moduleRef.init());
    expect(error).toBeInstanceOf(UnregisteredFeatureTopicsError);
    expect(error).toMatchObject({ topics: ['payment'], reason: 'no-engine' });
    expect((error as Error).message).toMatch(/declares 'payment', but the application has no DurableTimeoutModule\.forRoot/);
    // Nest 11's close awaits the failed init again (and rejects with its error).
    await moduleRef.close().catch(() => undefined);
  });

  it('fails the load of a lazy-loaded feature whose topics the engine never took', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [root({ reminder: {} })], providers: [Loader] }).compile();
    const app = await moduleRef.init();
    try {
      const error = await rejectionOf(() => app.get(Loader).lazy.load(() => LateModule));
      expect(error).toBeInstanceOf(UnregisteredFeatureTopicsError);
      expect(error).toMatchObject({ topics: ['late'], reason: 'loaded-late' });
      expect(app.get(TimeoutScheduler).engine.topics).toEqual(['reminder']);
    } finally {
      await app.close();
    }
  });

  it('names the feature module whose topic options the engine refuses', async () => {
    const error = await rejectionOf(() => Test.createTestingModule({ imports: [root({ reminder: {} }), BadOptionsModule] }).compile());
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect((error as Error).message).toMatch(/topics\.refund\.maxAttempts/);
    expect((error as Error).message).toMatch(/Topic 'refund' is declared by DurableTimeoutModule\.forFeature\(\.\.\.\) in BadOptionsModule: fix its options there/);
  });

  it('says so when one module declares a topic twice with different options', async () => {
    const error = await rejectionOf(() => Test.createTestingModule({ imports: [root(), TwiceModule] }).compile());
    expect(error).toMatchObject({ name: 'TopicDeclarationConflictError', declaredBy: ['TwiceModule', 'TwiceModule'] });
    expect((error as Error).message).toMatch(/declared twice by TwiceModule \(two forFeature\(\.\.\.\) calls\)/);
  });
});
