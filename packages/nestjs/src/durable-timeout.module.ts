import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule, ModulesContainer } from '@nestjs/core';
import type { DurableTimeouts, TopicOptions } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_SETTINGS } from './durable-timeout.constants.js';
import {
  ConfigurableDurableTimeoutModule,
  DURABLE_TIMEOUT_MODULE_OPTIONS,
  type DurableTimeoutModuleAsyncOptions,
} from './durable-timeout-module.definition.js';
import { durableTimeoutProviders } from './durable-timeout.providers.js';
import { createModuleEngine, settingsOf } from './durable-timeout.settings.js';
import type {
  DurableTimeoutFeatureOptions,
  DurableTimeoutModuleExtras,
  DurableTimeoutModuleOptions,
  DurableTimeoutSettings,
} from './interfaces/durable-timeout-module-options.interface.js';
import { DURABLE_TIMEOUT_FEATURE, featureDeclarations, type FeatureTopics } from './features/feature-topics.js';
import { DurableTimeoutFeatureModule } from './features/durable-timeout-feature.module.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
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
 *
 * In a larger application the topics belong to their feature modules: `forRoot` holds the
 * connection and the engine's settings, and each feature declares its topics with
 * `DurableTimeoutModule.forFeature({ topics: { payment: {} } })` in its own `imports`.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: DURABLE_TIMEOUTS,
      useFactory: (options: DurableTimeoutModuleOptions, modules: ModulesContainer): DurableTimeouts =>
        createModuleEngine(options, featureDeclarations(modules)),
      inject: [DURABLE_TIMEOUT_MODULE_OPTIONS, ModulesContainer],
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
export class DurableTimeoutModule extends ConfigurableDurableTimeoutModule {
  /**
   * The module with its engine, configured here (see the class). `TTopics` (a map of topic name
   * to payload type) makes a missing or unknown topic in `topics` a compile error.
   */
  static override forRoot<TTopics = any>(options: DurableTimeoutModuleOptions<TTopics> & DurableTimeoutModuleExtras): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * The module with its engine, configured by a factory that may inject other providers (a
   * `ConfigService`, for example): `imports`, `inject` and `useFactory` (or `useClass` /
   * `useExisting`), plus `isGlobal`. See the class for an example.
   */
  static override forRootAsync(options: DurableTimeoutModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }

  /**
   * Declares topics where they are used, the way a feature module registers its queues:
   *
   * ```ts
   * @Module({ imports: [DurableTimeoutModule.forFeature({ topics: { payment: { maxAttempts: 5 } } })] })
   * export class OrdersModule {}
   * ```
   *
   * The engine of `forRoot` / `forRootAsync` (imported once, usually in the root module) takes the
   * topics of every `forFeature` of the application at bootstrap, beside its own. The same topic
   * declared twice must carry the same options; with different options bootstrap fails with
   * `TopicDeclarationConflictError`, naming both declaring modules. `TTopics` (a map of topic name
   * to payload type) checks that every declared topic gets its options. To inject
   * `TimeoutScheduler` in a feature module, import the root module with `isGlobal: true`.
   */
  static forFeature<TTopics = any>(options: DurableTimeoutFeatureOptions<TTopics>): DynamicModule {
    const topics: unknown = options?.topics;
    if (topics === null || typeof topics !== 'object' || Array.isArray(topics)) {
      throw new InvalidModuleOptionsError(durableTimeoutMessages.invalidFeatureOptions(`topics is ${topics === null ? 'null' : Array.isArray(topics) ? 'an array' : typeof topics}.`));
    }
    const feature: FeatureTopics = { topics: { ...(topics as Record<string, TopicOptions>) } };
    return { module: DurableTimeoutFeatureModule, providers: [{ provide: DURABLE_TIMEOUT_FEATURE, useValue: feature }] };
  }
}
