import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { DURABLE_TIMEOUTS } from '../durable-timeout.constants.js';
import { OnTimeout } from '../decorators/on-timeout.decorator.js';
import { TimeoutScheduler } from '../timeout.scheduler.js';
import { TimeoutCancelledError, type TimeoutEvent } from '@durable-timeout/core';
import { DurableTimeoutModule } from '../durable-timeout.module.js';
import { DurableTimeoutTestingModule } from './durable-timeout-testing.module.js';
import { TimeoutTestingClock } from './timeout-testing.clock.js';

interface Payment {
  orderId: string;
}

@Injectable()
class PaymentTimeouts {
  readonly handled: TimeoutEvent<Payment>[] = [];
  failuresLeft = 0;

  @OnTimeout('payment')
  async onPaymentTimeout(event: TimeoutEvent<Payment>): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('payment service down');
    }
    this.handled.push(event);
  }
}

@Injectable()
class ChainTimeouts {
  readonly seen: string[] = [];
  constructor(private readonly scheduler: TimeoutScheduler) {}

  @OnTimeout('chain')
  async onChain(event: TimeoutEvent<{ left: number }>): Promise<void> {
    this.seen.push(event.id);
    if (event.payload.left > 0) {
      await this.scheduler.schedule('chain', `${event.id}+`, { delayMs: 0, payload: { left: event.payload.left - 1 } });
    }
  }
}

/** A handler that waits, before its side effect, until its signal aborts or the test lets it go on. */
@Injectable()
class SlowTimeouts {
  readonly seen: string[] = [];
  reason: unknown;
  private started: () => void = () => undefined;
  private goOn: () => void = () => undefined;
  readonly running = new Promise<void>((resolve) => (this.started = resolve));
  private readonly released = new Promise<void>((resolve) => (this.goOn = resolve));

  /** Lets a handler that was not aborted go on to its side effect. */
  release(): void {
    this.goOn();
  }

  @OnTimeout('slow')
  async onSlow(event: TimeoutEvent<null>): Promise<void> {
    this.seen.push(`start ${event.id}`);
    const aborted = new Promise<void>((resolve) =>
      event.signal.addEventListener('abort', () => resolve(void this.seen.push(`aborted ${event.id}`)), { once: true }),
    );
    this.started();
    await Promise.race([aborted, this.released]);
    if (event.signal.aborted) {
      this.reason = event.signal.reason;
      throw event.signal.reason;
    }
    this.seen.push(`side effect ${event.id}`);
  }
}

let moduleRef: TestingModule | undefined;

async function boot(startAt = Date.UTC(2030, 0, 1)): Promise<TestingModule> {
  moduleRef = await Test.createTestingModule({
    imports: [
      DurableTimeoutTestingModule.forRoot({
        topics: { payment: { maxAttempts: 3, backoff: { baseMs: 1_000, capMs: 1_000 } }, chain: {}, slow: { maxAttempts: 3 } },
        startAt,
        logger: null,
      }),
    ],
    providers: [PaymentTimeouts, ChainTimeouts, SlowTimeouts],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

afterEach(async () => {
  await moduleRef?.close();
  moduleRef = undefined;
});

describe('DurableTimeoutTestingModule', () => {
  it('fires the real @OnTimeout handler when the manual clock reaches the due time', async () => {
    const ref = await boot();
    const scheduler: TimeoutScheduler<{ payment: Payment }> = ref.get(TimeoutScheduler);
    const clock = ref.get(TimeoutTestingClock);
    const handler = ref.get(PaymentTimeouts);
    expect(clock.now()).toBe(Date.UTC(2030, 0, 1));

    await scheduler.schedule('payment', 'order-1', { delayMs: 60_000, payload: { orderId: 'order-1' } });
    expect(await clock.advanceBy(59_999)).toBe(0);
    expect(handler.handled).toEqual([]);
    expect(await clock.advanceBy(1)).toBe(1);
    expect(handler.handled).toHaveLength(1);
    expect(handler.handled[0]).toMatchObject({ topic: 'payment', id: 'order-1', payload: { orderId: 'order-1' }, attempt: 1 });
    expect(await scheduler.get('payment', 'order-1')).toBeNull();
  });

  it('does not fire a cancelled timeout', async () => {
    const ref = await boot();
    const scheduler = ref.get(TimeoutScheduler);
    await scheduler.schedule('payment', 'order-2', { delayMs: 1_000, payload: { orderId: 'order-2' } });
    expect(await scheduler.cancel('payment', 'order-2')).toBe('cancelled');
    expect(await ref.get(TimeoutTestingClock).advanceBy(10_000)).toBe(0);
    expect(ref.get(PaymentTimeouts).handled).toEqual([]);
  });

  it('aborts the running handler when its timeout is cancelled; its throw is neither retried nor dead-lettered', async () => {
    const ref = await boot();
    const scheduler = ref.get(TimeoutScheduler);
    const clock = ref.get(TimeoutTestingClock);
    const handler = ref.get(SlowTimeouts);
    await scheduler.schedule('slow', 'order-5', { delayMs: 1_000, payload: null });
    const advanced = clock.advanceBy(1_000);
    await handler.running;
    expect(await scheduler.cancel('slow', 'order-5')).toBe('firing');
    handler.seen.push('cancel returned');
    handler.release();
    expect(await advanced).toBe(1);
    expect(handler.seen).toEqual(['start order-5', 'aborted order-5', 'cancel returned']);
    expect(handler.reason).toBeInstanceOf(TimeoutCancelledError);
    expect(await scheduler.get('slow', 'order-5')).toBeNull();
    expect(await clock.advanceBy(60 * 60_000)).toBe(0);
    expect(await scheduler.listDead('slow')).toEqual([]);
  });

  it('aborts nothing when a pending timeout is cancelled while another handler runs', async () => {
    const ref = await boot();
    const scheduler = ref.get(TimeoutScheduler);
    const clock = ref.get(TimeoutTestingClock);
    const handler = ref.get(SlowTimeouts);
    await scheduler.schedule('slow', 'order-6', { delayMs: 0, payload: null });
    await scheduler.schedule('slow', 'order-7', { delayMs: 60_000, payload: null });
    const fired = clock.fireDue();
    await handler.running;
    expect(await scheduler.cancel('slow', 'order-7')).toBe('cancelled');
    handler.seen.push('cancel returned');
    handler.release();
    expect(await fired).toBe(1);
    expect(handler.seen).toEqual(['start order-6', 'cancel returned', 'side effect order-6']);
  });

  it('retries a throwing handler with the topic backoff, then dead-letters it', async () => {
    const ref = await boot();
    const scheduler = ref.get(TimeoutScheduler);
    const clock = ref.get(TimeoutTestingClock);
    const handler = ref.get(PaymentTimeouts);
    handler.failuresLeft = 3;
    await scheduler.schedule('payment', 'order-3', { delayMs: 0, payload: { orderId: 'order-3' } });
    expect(await clock.fireDue()).toBe(1);
    expect(await scheduler.get('payment', 'order-3')).toMatchObject({ state: 'pending', attempt: 1, lastError: 'payment service down' });
    await clock.advanceBy(1_000);
    await clock.advanceBy(1_000);
    expect(handler.handled).toEqual([]);
    const dead = await scheduler.listDead('payment');
    expect(dead).toMatchObject([{ id: 'order-3', attempts: 3, lastError: 'payment service down' }]);
    expect(await scheduler.replayDead('payment')).toBe(1);
    expect(await clock.fireDue()).toBe(1);
    expect(handler.handled.map((event) => event.id)).toEqual(['order-3']);
  });

  it('runs timeouts that handlers schedule due now within the same advance', async () => {
    const ref = await boot();
    await ref.get(TimeoutScheduler).schedule('chain', 'c', { delayMs: 500, payload: { left: 3 } });
    expect(await ref.get(TimeoutTestingClock).advanceTo(Date.UTC(2030, 0, 1) + 500)).toBe(4);
    expect(ref.get(ChainTimeouts).seen).toEqual(['c', 'c+', 'c++', 'c+++']);
  });

  it('exposes the engine and starts no pollers', async () => {
    const ref = await boot();
    const engine = ref.get(DURABLE_TIMEOUTS);
    expect(ref.get(TimeoutScheduler).engine).toBe(engine);
    await ref.get(TimeoutScheduler).waitUntilReady();
    expect((await engine.health()).running).toBe(false);
  });

  it('takes the topics of the forFeature modules under test, with their options', async () => {
    @Module({ imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 1 } } })], providers: [PaymentTimeouts] })
    class PaymentsFeature {}
    moduleRef = await Test.createTestingModule({ imports: [DurableTimeoutTestingModule.forRoot({ logger: null }), PaymentsFeature] }).compile();
    await moduleRef.init();
    const scheduler: TimeoutScheduler<{ payment: Payment }> = moduleRef.get(TimeoutScheduler);
    const handler = moduleRef.get(PaymentTimeouts);
    handler.failuresLeft = 1;
    await scheduler.schedule('payment', 'order-4', { delayMs: 10, payload: { orderId: 'order-4' } });
    expect(await moduleRef.get(TimeoutTestingClock).advanceBy(10)).toBe(1);
    // maxAttempts 1, from the feature: dead after the first failure.
    expect(await scheduler.listDead('payment')).toMatchObject([{ id: 'order-4', attempts: 1 }]);
  });
});
