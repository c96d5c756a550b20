import { Inject, Injectable, Logger, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Redis } from 'ioredis';
import { redisMessages } from './redis.messages.js';

/** How long the app's Redis client waits for its QUIT at shutdown before dropping the socket. */
const QUIT_GRACE_MS = 500;

/** Injection token of the ioredis client holding the app's own state. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** The settings the app's Redis client is opened with (part of each app's config). */
export interface RedisClientConfig {
  /** Redis holding the app's state. */
  REDIS_URL: string;
  /** Optional label of this instance, appended to the connection name. */
  INSTANCE_ID: string | undefined;
}

/**
 * The app's own Redis connection (the durable-timeout module opens and closes its own), named
 * `appName` or `appName:INSTANCE_ID` in `CLIENT LIST`.
 */
export function redisClientProvider(appName: string): Provider {
  return {
    provide: REDIS_CLIENT,
    inject: [ConfigService],
    useFactory: (config: ConfigService<RedisClientConfig, true>) => {
      const instance = config.get('INSTANCE_ID', { infer: true });
      const client = new Redis(config.get('REDIS_URL', { infer: true }), {
        connectionName: instance ? `${appName}:${instance}` : appName,
        // A request fails within a couple of seconds when Redis is down instead of hanging in the
        // offline queue; the client reconnects on its own meanwhile.
        maxRetriesPerRequest: 1,
        commandTimeout: 2_000,
        // Shutdown with Redis unreachable: drop the half-open socket quickly instead of after 2 s.
        disconnectTimeout: QUIT_GRACE_MS,
      });
      logOutages(client, new Logger(`${appName} Redis`));
      return client;
    },
  };
}

/**
 * Handles the client's `error` event, which ioredis emits at every failed reconnect (and prints
 * as "[ioredis] Unhandled error event" when nobody listens): one line when the connection is lost,
 * one when it is back. Requests see the outage through their own failing calls.
 */
function logOutages(client: Redis, logger: Logger): void {
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(redisMessages.connectionLost(error.message));
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.log(redisMessages.connectionBack());
  });
}

/**
 * Closes the app's Redis connection at the very end of shutdown, after the durable-timeout module
 * has drained the handlers that still write state through it.
 */
@Injectable()
export class RedisClientCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  /**
   * Quits politely when connected, drops the socket otherwise (Redis down: nothing to flush). A
   * Redis that is connected but does not answer (paused, partitioned) gets `QUIT_GRACE_MS`, not
   * the whole command timeout.
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      this.redis.quit().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), QUIT_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!answered) this.redis.disconnect();
  }
}
