import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Redis } from 'ioredis';

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
      return new Redis(config.get('REDIS_URL', { infer: true }), {
        connectionName: instance ? `${appName}:${instance}` : appName,
        // A request fails within a couple of seconds when Redis is down instead of hanging in the
        // offline queue; the client reconnects on its own meanwhile.
        maxRetriesPerRequest: 1,
        commandTimeout: 2_000,
        // Shutdown with Redis unreachable: drop the half-open socket quickly instead of after 2 s.
        disconnectTimeout: 500,
      });
    },
  };
}

/**
 * Closes the app's Redis connection at the very end of shutdown, after the durable-timeout module
 * has drained the handlers that still write state through it.
 */
@Injectable()
export class RedisClientCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  /** Quits politely when connected, drops the socket otherwise (Redis down: nothing to flush). */
  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
  }
}
