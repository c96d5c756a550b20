import { Module, ValidationPipe, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { DurableTimeoutModule } from '@durable-timeout/nestjs';
import { DurableTimeoutHealthIndicator } from '@durable-timeout/nestjs/terminus';
import { HealthController, RedisHealthIndicator, ServiceUnavailableFilter, ShutdownLogger } from '@durable-timeout/sample-app-support';
import { loadRidesConfig, type RidesConfig } from './config/rides.config.js';
import { DRIVER_MATCH_TOPIC } from './trips/deadlines/durable-match-deadlines.js';
import { TripsModule } from './trips/trips.module.js';
import { RedisModule } from './redis/redis.module.js';

/** Attempts of a driver-match timeout before it is dead-lettered: only Redis errors make it retry. */
const MATCH_MAX_ATTEMPTS = 10;

/** The rides app. Build it with `AppModule.register(config)`; `main.ts` passes the environment's config. */
@Module({})
export class AppModule {
  /**
   * Assembles the app for a configuration (default: read from `process.env`). The config is handed
   * to `ConfigModule` as is, so two instances with different settings can run in one process (tests).
   */
  static register(config: RidesConfig = loadRidesConfig()): DynamicModule {
    const durable = config.TIMEOUT_MODE === 'durable';
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          ignoreEnvVars: true,
          skipProcessEnv: true,
          load: [() => ({ ...config })],
        }),
        RedisModule,
        TerminusModule,
        ...(durable
          ? [
              DurableTimeoutModule.forRootAsync({
                // Global, so the trips feature module can inject TimeoutScheduler.
                isGlobal: true,
                imports: [ConfigModule],
                inject: [ConfigService],
                useFactory: (settings: ConfigService<RidesConfig, true>) => ({
                  connection: settings.get('REDIS_URL', { infer: true }),
                  prefix: settings.get('DT_PREFIX', { infer: true }),
                  topics: {
                    [DRIVER_MATCH_TOPIC]: {
                      leaseMs: settings.get('TIMEOUT_LEASE_MS', { infer: true }),
                      maxAttempts: MATCH_MAX_ATTEMPTS,
                    },
                  },
                  drainMs: settings.get('DRAIN_MS', { infer: true }),
                }),
              }),
            ]
          : []),
        TripsModule.register(config.TIMEOUT_MODE),
      ],
      controllers: [HealthController],
      providers: [
        ShutdownLogger,
        RedisHealthIndicator,
        ...(durable ? [DurableTimeoutHealthIndicator] : []),
        { provide: APP_FILTER, useClass: ServiceUnavailableFilter },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
        },
      ],
    };
  }
}
