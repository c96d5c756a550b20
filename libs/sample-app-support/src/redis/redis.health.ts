import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { REDIS_CLIENT } from './redis-client.providers.js';

/** Terminus indicator of the app's Redis connection: a PING answered within a second. */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly health: HealthIndicatorService,
  ) {}

  /**
   * Up when Redis answers PING within `timeoutMs` (a connection still opening gets that long too);
   * down otherwise. Never throws.
   */
  async isHealthy<const Key extends string>(key: Key, timeoutMs = 1_000): Promise<HealthIndicatorResult<Key>> {
    return this.health
      .check(key)
      .attempt(async () => {
        await this.redis.ping();
      })
      .withTimeout(timeoutMs);
  }
}
