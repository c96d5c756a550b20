import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DurableTimeoutModuleOptions } from '@durable-timeout/nestjs';
import type { RidesConfig } from '../../config/rides.config.js';
import { ridesTopics, type RidesTopic } from './ride-topics.js';

/**
 * The durable-timeout module's options, built by a class (`forRootAsync({ useClass })`): Nest
 * creates it inside the module with its own dependencies, here the app's `ConfigService`.
 */
@Injectable()
export class RidesTimeoutOptions {
  constructor(private readonly config: ConfigService<RidesConfig, true>) {}

  /** Called once by the module, before the engine is built. */
  create(): DurableTimeoutModuleOptions<RidesTopic> {
    const setting = <K extends keyof RidesConfig>(key: K) => this.config.get(key, { infer: true });
    return {
      connection: setting('REDIS_URL'),
      prefix: setting('DT_PREFIX'),
      topics: ridesTopics({
        TIMEOUT_LEASE_MS: setting('TIMEOUT_LEASE_MS'),
        TIMEOUT_MAX_ATTEMPTS: setting('TIMEOUT_MAX_ATTEMPTS'),
        TIMEOUT_RETRY_BASE_MS: setting('TIMEOUT_RETRY_BASE_MS'),
      }),
      drainMs: setting('DRAIN_MS'),
    };
  }
}
