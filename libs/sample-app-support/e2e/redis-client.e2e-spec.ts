import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleLogger } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { Test, type TestingModule } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import { REDIS_CLIENT, RedisClientCloser, redisClientProvider } from '../src/redis/redis-client.providers.js';

/** Every line Nest's loggers write, with its level. */
class CapturingLogger extends ConsoleLogger {
  readonly lines: { level: string; message: string }[] = [];
  override log(message: unknown): void {
    this.lines.push({ level: 'log', message: String(message) });
  }
  override warn(message: unknown): void {
    this.lines.push({ level: 'warn', message: String(message) });
  }
  override error(message: unknown): void {
    this.lines.push({ level: 'error', message: String(message) });
  }
}

let server: RedisServer;
let moduleRef: TestingModule | undefined;

beforeAll(async () => {
  server = await RedisServer.start();
});

afterEach(async () => {
  await moduleRef?.close();
  moduleRef = undefined;
});

afterAll(async () => {
  await server?.stop();
});

/** Resolves once `client` has emitted `event` `times` times (counted from now). */
function emitted(client: Redis, event: string, times = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const listener = () => {
      if (++seen < times) return;
      client.off(event, listener);
      resolve();
    };
    client.on(event, listener);
  });
}

describe("the sample apps' own Redis client", () => {
  it('handles its error event: logs an outage once and its recovery once', async () => {
    const logger = new CapturingLogger();
    moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, ignoreEnvVars: true, load: [() => ({ REDIS_URL: server.url })] })],
      providers: [redisClientProvider('orders'), RedisClientCloser],
    })
      .setLogger(logger)
      .compile();
    const redis = moduleRef.get<Redis>(REDIS_CLIENT);
    await redis.ping();

    const retries = emitted(redis, 'reconnecting', 6);
    await server.kill();
    // Six failed reconnects, each one an error of the connection.
    await retries;
    const back = emitted(redis, 'ready');
    await server.restart();
    await back;
    await redis.ping();

    // Without a listener ioredis prints "[ioredis] Unhandled error event" for each of these errors.
    // (Not observable here: under Jest, socket errors come from another realm and fail the
    // `instanceof Error` check ioredis makes before printing.)
    expect(redis.listenerCount('error')).toBeGreaterThan(0);
    const redisLines = logger.lines.filter((line) => /Redis/.test(line.message));
    expect(redisLines).toEqual([
      { level: 'warn', message: expect.stringMatching(/^Redis .*unreachable/) },
      { level: 'log', message: expect.stringMatching(/^Redis .*reachable again/) },
    ]);
  });

  it('closes without waiting out the command timeout when Redis is connected but does not answer', async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, ignoreEnvVars: true, load: [() => ({ REDIS_URL: server.url })] })],
      providers: [redisClientProvider('orders'), RedisClientCloser],
    })
      .setLogger(new CapturingLogger())
      .compile();
    const redis = moduleRef.get<Redis>(REDIS_CLIENT);
    await redis.ping();
    server.pause();
    try {
      const ended = new Promise((resolve) => redis.once('end', resolve));
      const closing = performance.now();
      await moduleRef.close();
      moduleRef = undefined;
      // The client's command timeout is 2 s; the QUIT gets a quarter of it.
      expect(performance.now() - closing).toBeLessThan(1_000);
      // Then the socket is dropped (within its own disconnect grace).
      await ended;
      expect(performance.now() - closing).toBeLessThan(1_500);
    } finally {
      server.resume();
    }
  });
});
