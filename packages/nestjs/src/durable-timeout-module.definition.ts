import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DurableTimeoutModuleExtras, DurableTimeoutModuleOptions } from './interfaces/durable-timeout-module-options.interface.js';

/**
 * `forRoot` / `forRootAsync` come from Nest's `ConfigurableModuleBuilder`; the `isGlobal` extra
 * turns the dynamic module global.
 */
export const {
  ConfigurableModuleClass: ConfigurableDurableTimeoutModule,
  /** Injection token of the options given to `forRoot` / `forRootAsync` (without `isGlobal`). */
  MODULE_OPTIONS_TOKEN: DURABLE_TIMEOUT_MODULE_OPTIONS,
  OPTIONS_TYPE: DURABLE_TIMEOUT_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DURABLE_TIMEOUT_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DurableTimeoutModuleOptions>({ moduleName: 'DurableTimeout' })
  .setClassMethodName('forRoot')
  .setExtras<DurableTimeoutModuleExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal ?? false,
  }))
  .build();

/** What `DurableTimeoutModule.forRoot(...)` takes: the module options plus `isGlobal`. */
export type DurableTimeoutModuleRootOptions = typeof DURABLE_TIMEOUT_OPTIONS_TYPE;

/** What `DurableTimeoutModule.forRootAsync(...)` takes: `imports`, `inject`, `useFactory` (or `useClass` / `useExisting`), `isGlobal`. */
export type DurableTimeoutModuleAsyncOptions = typeof DURABLE_TIMEOUT_ASYNC_OPTIONS_TYPE;
