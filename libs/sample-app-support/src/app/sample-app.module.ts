import { Module, ValidationPipe, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { DurableTimeoutHealthIndicator } from '@durable-timeout/nestjs/terminus';
import type { SampleAppConfig } from '../config/sample-app-config.js';
import { HealthController } from '../health/health.controller.js';
import { RecordErrorsFilter } from '../http/record-errors.filter.js';
import { ServiceUnavailableFilter } from '../http/service-unavailable.filter.js';
import { APP_NAME, ShutdownLogger } from '../lifecycle/shutdown.logger.js';
import { REDIS_CLIENT, RedisClientCloser, redisClientProvider } from '../redis/redis-client.providers.js';
import { RedisHealthIndicator } from '../redis/redis.health.js';
import { operatorModules } from '../operations/operator.modules.js';

/** Options of `SampleAppModule.forRoot`. */
export interface SampleAppModuleOptions {
  /** The app's short name (`orders`, `rides`), used in logs and in its Redis connection name. */
  name: string;
  /** The app's settings, read once at start; `ConfigService` serves them. */
  config: SampleAppConfig;
  /** Whether the app registers `DurableTimeoutModule`: then `/health` checks the timeout pollers too. */
  durableTimeouts: boolean;
}

/**
 * What every sample app runs besides its feature and its `DurableTimeoutModule`: `ConfigService`
 * over the given settings, the app's own Redis connection (`REDIS_CLIENT`, closed last on
 * shutdown), `GET /health`, `GET /metrics` and the admin page (durable mode), the shutdown log lines, input validation (unknown fields are a 400),
 * 404/409 for the record errors and 503 with `Retry-After` when Redis is out of reach or the
 * instance is shutting down. Global, so feature modules inject `REDIS_CLIENT` and `ConfigService`.
 */
@Module({})
export class SampleAppModule {
  /** The module for one app instance; the config is handed over as is, so tests run several instances in one process. */
  static forRoot(options: SampleAppModuleOptions): DynamicModule {
    return {
      module: SampleAppModule,
      global: true,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          ignoreEnvVars: true,
          skipProcessEnv: true,
          load: [() => ({ ...options.config })],
        }),
        TerminusModule,
        // GET /metrics (Prometheus), and the admin page at /timeouts when ADMIN_TOKEN is set.
        ...(options.durableTimeouts ? operatorModules(options.config) : []),
      ],
      controllers: [HealthController],
      providers: [
        { provide: APP_NAME, useValue: options.name },
        redisClientProvider(options.name),
        RedisClientCloser,
        ShutdownLogger,
        RedisHealthIndicator,
        ...(options.durableTimeouts ? [DurableTimeoutHealthIndicator] : []),
        { provide: APP_FILTER, useClass: ServiceUnavailableFilter },
        { provide: APP_FILTER, useClass: RecordErrorsFilter },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
        },
      ],
      exports: [APP_NAME, REDIS_CLIENT],
    };
  }
}
