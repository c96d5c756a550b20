import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, Logger, Scope, type Provider, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import type { TimeoutEvent, TimeoutHandler } from '@durable-timeout/core';
import { createTestingTimeouts } from '@durable-timeout/core/testing';
import { OnTimeout } from './decorators/on-timeout.decorator.js';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS } from './durable-timeout.constants.js';
import { durableTimeoutProviders } from './durable-timeout.providers.js';
import { settingsOf } from './durable-timeout.settings.js';
import { DuplicateTimeoutHandlerError } from './errors/duplicate-timeout-handler.error.js';
import { InvalidTimeoutHandlerError } from './errors/invalid-timeout-handler.error.js';
import { DurableTimeoutError, UnknownTopicError } from '@durable-timeout/core';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';

/** Stand-in for the engine: records the handlers bound to it. */
class FakeEngine {
  readonly handlers = new Map<string, TimeoutHandler>();
  handle(topic: string, handler: TimeoutHandler): this {
    this.handlers.set(topic, handler);
    return this;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  /** The orchestrator listens for the drain summary while it stops the engine. */
  on(): () => void {
    return () => undefined;
  }
}

@Injectable()
class PaymentTimeouts {
  readonly seen: string[] = [];
  @OnTimeout('payment')
  onPayment(event: TimeoutEvent): string {
    this.seen.push(event.id);
    return `handled ${event.id}`;
  }
  notAHandler(): void {}
}

@Injectable()
class OtherPaymentTimeouts {
  @OnTimeout('payment')
  alsoPayment(): void {}
}

@Injectable()
class StrayTimeouts {
  @OnTimeout('refund')
  onRefund(): void {}
}

@Injectable()
class EmptyTopicTimeouts {
  @OnTimeout('')
  onNothing(): void {}
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedTimeouts {
  @OnTimeout('payment')
  onPayment(): void {}
}

let moduleRef: TestingModule | undefined;

async function boot(providers: Provider[], topics = ['payment', 'ride']): Promise<{ moduleRef: TestingModule; engine: FakeEngine }> {
  const engine = new FakeEngine();
  const settings = settingsOf(createTestingTimeouts({ topics: Object.fromEntries(topics.map((topic) => [topic, {}])) }).timeouts);
  moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      { provide: DURABLE_TIMEOUTS, useValue: engine },
      { provide: DURABLE_TIMEOUT_SETTINGS, useValue: settings },
      ...durableTimeoutProviders,
      ...providers,
    ],
  }).compile();
  await moduleRef.init();
  return { moduleRef, engine };
}

afterEach(async () => {
  // Nest 11 rethrows a failed init from close(); the fake engine holds nothing to release.
  await moduleRef?.close().catch(() => undefined);
  moduleRef = undefined;
  jest.restoreAllMocks();
});

describe('TimeoutExplorer', () => {
  it('binds an @OnTimeout method to its topic and calls it on the provider instance', async () => {
    const { moduleRef, engine } = await boot([PaymentTimeouts]);
    expect([...engine.handlers.keys()]).toEqual(['payment']);
    const result = await engine.handlers.get('payment')!({ id: 'order-1' } as TimeoutEvent);
    expect(result).toBe('handled order-1');
    expect(moduleRef.get(PaymentTimeouts).seen).toEqual(['order-1']);
    expect(moduleRef.get(TimeoutHandlerRegistry).get('payment')).toEqual({
      topic: 'payment',
      className: 'PaymentTimeouts',
      methodName: 'onPayment',
    });
  });

  it('fails fast on two handlers for one topic, naming both classes and methods', async () => {
    const failure = boot([PaymentTimeouts, OtherPaymentTimeouts]);
    await expect(failure).rejects.toThrow(DuplicateTimeoutHandlerError);
    await expect(failure).rejects.toMatchObject({
      topic: 'payment',
      handlers: [
        { className: 'PaymentTimeouts', methodName: 'onPayment' },
        { className: 'OtherPaymentTimeouts', methodName: 'alsoPayment' },
      ],
    });
    await expect(failure).rejects.toBeInstanceOf(DurableTimeoutError);
    await expect(boot([PaymentTimeouts, OtherPaymentTimeouts])).rejects.toThrow(
      /PaymentTimeouts\.onPayment\(\).*OtherPaymentTimeouts\.alsoPayment\(\)/,
    );
  });

  it('fails fast on a handler for a topic that is not configured, naming class, method and topics', async () => {
    const failure = boot([StrayTimeouts]);
    await expect(failure).rejects.toThrow(UnknownTopicError);
    await expect(failure).rejects.toMatchObject({ topic: 'refund', known: ['payment', 'ride'] });
    await expect(boot([StrayTimeouts])).rejects.toThrow(/StrayTimeouts\.onRefund\(\).*'refund'.*'payment', 'ride'/);
  });

  it('refuses an empty topic name', async () => {
    const failure = boot([EmptyTopicTimeouts]);
    await expect(failure).rejects.toThrow(InvalidTimeoutHandlerError);
    await expect(failure).rejects.toMatchObject({ handler: { className: 'EmptyTopicTimeouts' } });
    await expect(failure).rejects.toBeInstanceOf(DurableTimeoutError);
  });

  it('logs once each configured topic that has no handler in this application', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    await boot([PaymentTimeouts]);
    const lines = log.mock.calls.map(([message]) => String(message));
    expect(lines.filter((line) => line.includes("Topic 'ride' has no @OnTimeout handler"))).toHaveLength(1);
    expect(lines.some((line) => line.includes("Topic 'payment' has no"))).toBe(false);
  });

  it('ignores request-scoped handlers with a warning naming class and method', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { engine } = await boot([RequestScopedTimeouts as Type]);
    expect(engine.handlers.size).toBe(0);
    expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringContaining('RequestScopedTimeouts.onPayment() has @OnTimeout but its provider is request-scoped'),
    ]);
  });

  it('skips providers that hold no object (value and factory providers)', async () => {
    const { engine } = await boot([
      { provide: 'a-number', useValue: 42 },
      { provide: 'nothing', useFactory: () => null },
      PaymentTimeouts,
    ]);
    expect([...engine.handlers.keys()]).toEqual(['payment']);
  });
});
