import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module, type LoggerService } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { RedisServer, freePort } from '@durable-timeout/redis-testing';
import type { DurableTimeouts } from '@durable-timeout/core';
import {
  DURABLE_TIMEOUTS,
  DuplicateTimeoutHandlerError,
  DurableTimeoutModule,
  InvalidModuleOptionsError,
  ModuleNotStartedError,
  OnTimeout,
  TimeoutScheduler,
  UnknownTopicError,
  type TimeoutEvent,
} from '@durable-timeout/nestjs';
import { uniquePrefix, waitFor } from './support/wait-for.js';

interface Reminder {
  text: string;
}

const received: TimeoutEvent<Reminder>[] = [];

@Injectable()
class ReminderTimeouts {
  @OnTimeout('reminder')
  onReminder(event: TimeoutEvent<Reminder>): void {
    received.push(event);
  }
}

/** A feature module that does not import DurableTimeoutModule: it relies on `isGlobal`. */
@Injectable()
class ReminderService {
  constructor(readonly timeouts: TimeoutScheduler<{ reminder: Reminder }>) {}
}

@Module({ providers: [ReminderService, ReminderTimeouts], exports: [ReminderService] })
class RemindersModule {}

@Injectable()
class FlakyReminderTimeouts {
  calls = 0;
  @OnTimeout('reminder')
  onReminder(): void {
    this.calls += 1;
    if (this.calls === 1) throw new Error('mail server down');
  }
}

/** Collects every log line the application writes. */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown, ...rest: unknown[]): void {
    this.lines.push(['log', message, ...rest].map(String).join(' '));
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.lines.push(['warn', message, ...rest].map(String).join(' '));
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.lines.push(['error', message, ...rest].map(String).join(' '));
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.lines.push(['debug', message, ...rest].map(String).join(' '));
  }
}

@Injectable()
class DuplicateReminderTimeouts {
  @OnTimeout('reminder')
  alsoReminder(): void {}
}

@Injectable()
class UnknownTopicTimeouts {
  @OnTimeout('invoice')
  onInvoice(): void {}
}

/** Connections the server sees with this client name. */
async function connectionsNamed(admin: Redis, name: string): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(`name=${name} `)).length;
}

describe('DurableTimeoutModule against a real Redis', () => {
  let redis: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    redis = await RedisServer.start();
    admin = redis.client();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it('forRootAsync reads its options from ConfigService, and isGlobal serves other modules', async () => {
    const prefix = uniquePrefix('async');
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ REDIS_URL: redis.url, TIMEOUT_PREFIX: prefix, DRAIN_MS: 500 })] }),
        DurableTimeoutModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({
            connection: config.getOrThrow<string>('REDIS_URL'),
            prefix: config.getOrThrow<string>('TIMEOUT_PREFIX'),
            drainMs: config.getOrThrow<number>('DRAIN_MS'),
            topics: { reminder: { slots: 2 } },
          }),
          isGlobal: true,
        }),
        RemindersModule,
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      const { timeouts } = app.get(ReminderService);
      await timeouts.waitUntilReady();
      const result = await timeouts.schedule('reminder', 'r-1', { delayMs: 50, payload: { text: 'call back' } });
      expect(result).toMatchObject({ topic: 'reminder', id: 'r-1', outcome: 'created' });
      const event = await waitFor('the reminder to fire', () => received.find((e) => e.id === 'r-1'));
      expect(event).toMatchObject({ topic: 'reminder', id: 'r-1', payload: { text: 'call back' }, attempt: 1 });
      expect(event.dueAt).toBeGreaterThanOrEqual(event.scheduledAt + 50);
      // The keys carry the prefix read from the configuration.
      await timeouts.schedule('reminder', 'r-later', { delayMs: 60_000 });
      expect((await admin.keys(`${prefix}*`)).length).toBeGreaterThan(0);
      expect(app.get(DURABLE_TIMEOUTS)).toBe(timeouts.engine);
    } finally {
      await app.close();
    }
  });

  it('closes the connections it opened, and never one it was given', async () => {
    const given = redis.client({ connectionName: 'given-by-user' });
    await given.ping();
    const moduleRef = await Test.createTestingModule({
      imports: [DurableTimeoutModule.forRoot({ connection: given, prefix: uniquePrefix('given'), topics: { reminder: {} } })],
      providers: [ReminderTimeouts],
    }).compile();
    const app = await moduleRef.init();
    await app.get(TimeoutScheduler).schedule('reminder', 'r-given', { delayMs: 60_000 });
    await app.close();
    expect(given.status).toBe('ready');
    expect(await given.ping()).toBe('PONG');
    expect(await connectionsNamed(admin, 'given-by-user')).toBe(1);
    given.disconnect();

    const opened = await Test.createTestingModule({
      imports: [
        DurableTimeoutModule.forRoot({
          connection: { host: redis.host, port: redis.port, connectionName: 'opened-by-module' },
          prefix: uniquePrefix('opened'),
          topics: { reminder: {} },
        }),
      ],
      providers: [ReminderTimeouts],
    }).compile();
    const openedApp = await opened.init();
    await openedApp.get(TimeoutScheduler).schedule('reminder', 'r-opened', { delayMs: 60_000 });
    expect(await connectionsNamed(admin, 'opened-by-module')).toBeGreaterThan(0);
    await openedApp.close();
    await waitFor('the module connections to close', async () => (await connectionsNamed(admin, 'opened-by-module')) === 0);
  });

  async function expectBootFailure(providers: Function[], error: Function, message: RegExp): Promise<void> {
    let moduleRef: TestingModule | undefined;
    try {
      moduleRef = await Test.createTestingModule({
        imports: [DurableTimeoutModule.forRoot({ connection: redis.url, prefix: uniquePrefix('bad'), topics: { reminder: {} } })],
        providers: providers as never[],
      }).compile();
      const init = moduleRef.init();
      await expect(init).rejects.toThrow(error as never);
      await expect(init).rejects.toThrow(message);
    } finally {
      // A failed init cannot always be closed (Nest 11 rethrows); stop the engine directly.
      await (moduleRef?.get<DurableTimeouts>(DURABLE_TIMEOUTS).stop({ drainMs: 0 }) ?? Promise.resolve());
    }
  }

  it('refuses to boot with two handlers for one topic, naming both classes and methods', async () => {
    await expectBootFailure(
      [ReminderTimeouts, DuplicateReminderTimeouts],
      DuplicateTimeoutHandlerError,
      /ReminderTimeouts\.onReminder\(\) and DuplicateReminderTimeouts\.alsoReminder\(\)/,
    );
  });

  it('refuses to boot with a handler for a topic that is not configured, naming class and method', async () => {
    await expectBootFailure([UnknownTopicTimeouts], UnknownTopicError, /UnknownTopicTimeouts\.onInvoice\(\) handles @OnTimeout\('invoice'\)/);
  });

  it.each([-5, 4_000_000])('refuses drainMs %p by the rule stop() applies, at creation, saying what to fix', async (drainMs) => {
    const compile = Test.createTestingModule({
      imports: [DurableTimeoutModule.forRoot({ connection: redis.url, topics: { reminder: {} }, drainMs })],
    }).compile();
    await expect(compile).rejects.toThrow(InvalidModuleOptionsError);
    await expect(compile).rejects.toThrow(new RegExp(`drainMs = ${drainMs}: use a whole number from 0 to 3600000`));
  });

  it('fails bootstrap fast when Redis is unreachable, and waitUntilReady says so', async () => {
    const port = await freePort();
    const moduleRef = await Test.createTestingModule({
      imports: [
        DurableTimeoutModule.forRoot({ connection: `redis://127.0.0.1:${port}`, prefix: uniquePrefix('down'), topics: { reminder: {} }, commandTimeoutMs: 300 }),
      ],
      providers: [ReminderTimeouts],
    }).compile();
    try {
      await expect(moduleRef.init()).rejects.toThrow(/could not be reached .*ECONNREFUSED/);
      await expect(moduleRef.get(TimeoutScheduler).waitUntilReady()).rejects.toThrow(ModuleNotStartedError);
    } finally {
      await moduleRef.get<DurableTimeouts>(DURABLE_TIMEOUTS).stop({ drainMs: 0 });
    }
  });

  it('logs through Nest Logger with topic, id and attempt, never the payload', async () => {
    const logger = new CapturingLogger();
    const moduleRef = await Test.createTestingModule({
      imports: [
        DurableTimeoutModule.forRoot({
          connection: redis.url,
          prefix: uniquePrefix('logs'),
          topics: { reminder: { slots: 1, backoff: { baseMs: 10, capMs: 10 } } },
        }),
      ],
      providers: [FlakyReminderTimeouts],
    })
      .setLogger(logger)
      .compile();
    const app = await moduleRef.init();
    try {
      const secret = 'card-4111-1111-1111-1111';
      await app.get(TimeoutScheduler).schedule('reminder', 'r-logged', { delayMs: 0, payload: { text: secret } });
      await waitFor('the retry to succeed', () => app.get(FlakyReminderTimeouts).calls >= 2);
      const failure = await waitFor('the failure to be logged', () => logger.lines.find((line) => line.includes('mail server down')));
      expect(failure).toMatch(/^warn .*topic=reminder id=r-logged attempt=1 .*DurableTimeouts$/);
      expect(logger.lines.some((line) => line.includes("Firing timeouts of 'reminder'"))).toBe(true);
      expect(logger.lines.filter((line) => line.includes(secret))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
