import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { DurableTimeouts } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS } from './durable-timeout.constants.js';
import { ConfigurableDurableTimeoutModule, DURABLE_TIMEOUT_MODULE_OPTIONS } from './durable-timeout-module.definition.js';
import { durableTimeoutProviders } from './durable-timeout.providers.js';
import { createModuleEngine, settingsOf } from './durable-timeout.settings.js';
import type { DurableTimeoutModuleOptions, DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { TimeoutScheduler } from './timeout.scheduler.js';

/**
 * Durable timeouts for a Nest application.
 *
 * ```ts
 * DurableTimeoutModule.forRoot({ connection: 'redis://localhost:6379', topics: { payment: {} } })
 * DurableTimeoutModule.forRootAsync({
 *   imports: [ConfigModule], inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ connection: config.getOrThrow('REDIS_URL'), topics: { payment: {} } }),
 * })
 * ```
 *
 * Exports `TimeoutScheduler` and the `DURABLE_TIMEOUTS` engine; `@OnTimeout` methods anywhere in
 * the application are discovered at `onModuleInit`. Pass `isGlobal: true` to inject the scheduler
 * without importing the module everywhere.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: DURABLE_TIMEOUTS,
      useFactory: (options: DurableTimeoutModuleOptions): DurableTimeouts => createModuleEngine(options),
      inject: [DURABLE_TIMEOUT_MODULE_OPTIONS],
    },
    {
      provide: DURABLE_TIMEOUT_SETTINGS,
      useFactory: (engine: DurableTimeouts): DurableTimeoutSettings => settingsOf(engine),
      inject: [DURABLE_TIMEOUTS],
    },
    ...durableTimeoutProviders,
  ],
  exports: [TimeoutScheduler, DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS],
})
export class DurableTimeoutModule extends ConfigurableDurableTimeoutModule {}
