import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule, ModulesContainer } from '@nestjs/core';
import { DurableTimeouts, type DurableTimeoutsOptions, type TimeoutLogger } from '@durable-timeout/core';
import { createTestingTimeouts, ManualClock, type TestingTimeouts } from '@durable-timeout/core/testing';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS } from '../durable-timeout.constants.js';
import { durableTimeoutProviders } from '../durable-timeout.providers.js';
import { settingsOf, withFeatureTopics } from '../durable-timeout.settings.js';
import { featureDeclarations } from '../features/feature-topics.js';
import type { DurableTimeoutSettings } from '../interfaces/durable-timeout-module-options.interface.js';
import { NestTimeoutLogger } from '../nest-timeout.logger.js';
import { TimeoutScheduler } from '../timeout.scheduler.js';
import { DURABLE_TIMEOUT_TESTING, DURABLE_TIMEOUT_TESTING_CLOCK } from './timeout-testing.constants.js';
import { TimeoutTestingClock } from './timeout-testing.clock.js';

/** Options of `DurableTimeoutTestingModule.forRoot`. */
export interface DurableTimeoutTestingOptions<TTopics = any> {
  /**
   * The topics, as in `DurableTimeoutModule.forRoot` (`maxAttempts`, `backoff`, ... apply as in
   * production). The topics of the `forFeature(...)` modules under test are added to them.
   */
  topics?: DurableTimeoutsOptions<TTopics>['topics'];
  /** Initial time of the manual clock (ms since the epoch or a Date). Default: now. */
  startAt?: number | Date;
  /** Where the engine logs (a failing handler is logged as in production). Default: Nest's `Logger`; `null` silences it. */
  logger?: TimeoutLogger | null;
  /** Register the module globally. Default false. */
  isGlobal?: boolean;
}

/**
 * A drop-in replacement of `DurableTimeoutModule` for unit tests: the same `TimeoutScheduler`,
 * `DURABLE_TIMEOUTS` and `@OnTimeout` discovery, backed by the in-memory store and a manual clock
 * instead of Redis. Inject `TimeoutTestingClock` and call `advanceBy(ms)` to fire what is due.
 *
 * ```ts
 * const moduleRef = await Test.createTestingModule({
 *   imports: [DurableTimeoutTestingModule.forRoot({ topics: { payment: {} } })],
 *   providers: [PaymentTimeouts],
 * }).compile();
 * await moduleRef.init(); // runs discovery
 * ```
 */
@Module({})
export class DurableTimeoutTestingModule {
  /** Creates the testing module for these topics. */
  static forRoot<TTopics = any>(options: DurableTimeoutTestingOptions<TTopics>): DynamicModule {
    return {
      module: DurableTimeoutTestingModule,
      global: options.isGlobal ?? false,
      imports: [DiscoveryModule],
      providers: [
        {
          provide: DURABLE_TIMEOUT_TESTING,
          useFactory: (modules: ModulesContainer): TestingTimeouts =>
            createTestingTimeouts({
              topics: withFeatureTopics(options.topics, featureDeclarations(modules)),
              startAt: options.startAt,
              drainMs: 0,
              logger: options.logger === undefined ? new NestTimeoutLogger() : options.logger,
            }),
          inject: [ModulesContainer],
        },
        {
          provide: DURABLE_TIMEOUT_SETTINGS,
          // The manual clock fires: no pollers.
          useFactory: (testing: TestingTimeouts): DurableTimeoutSettings => settingsOf(testing.timeouts, false),
          inject: [DURABLE_TIMEOUT_TESTING],
        },
        {
          provide: DURABLE_TIMEOUT_TESTING_CLOCK,
          useFactory: (testing: TestingTimeouts): ManualClock => testing.clock,
          inject: [DURABLE_TIMEOUT_TESTING],
        },
        {
          provide: DURABLE_TIMEOUTS,
          useFactory: (testing: TestingTimeouts): DurableTimeouts => testing.timeouts,
          inject: [DURABLE_TIMEOUT_TESTING],
        },
        TimeoutTestingClock,
        ...durableTimeoutProviders,
      ],
      exports: [TimeoutScheduler, TimeoutTestingClock, DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS],
    };
  }
}
