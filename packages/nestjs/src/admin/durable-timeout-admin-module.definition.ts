import { ConfigurableModuleBuilder } from '@nestjs/common';
import { adminControllerFor } from './durable-timeout-admin.controller.js';
import { DEFAULT_ADMIN_PATH, DURABLE_TIMEOUT_ADMIN_HAS_GUARD } from './durable-timeout-admin.constants.js';
import type { DurableTimeoutAdminExtras, DurableTimeoutAdminOptions } from './durable-timeout-admin-options.interface.js';
import { resolveAdminPath } from './durable-timeout-admin.settings.js';

/**
 * `forRoot` / `forRootAsync` come from Nest's `ConfigurableModuleBuilder` (its class, token and option types are exported
 * because `DurableTimeoutAdminModule` and its option types are built on them). The `path` and `guard`
 * extras shape the routes, so they are given to both variants directly (not by the async factory):
 * the controller is made for them when the module is defined.
 */
export const {
  /** The base class of `DurableTimeoutAdminModule`, with its `forRoot` / `forRootAsync`. */
  ConfigurableModuleClass: ConfigurableDurableTimeoutAdminModule,
  /** Injection token of the options given to `forRoot` / `forRootAsync` (without the extras). */
  MODULE_OPTIONS_TOKEN: DURABLE_TIMEOUT_ADMIN_OPTIONS,
  /** A value to take the type of only (`typeof`): what `forRoot` takes. */
  OPTIONS_TYPE: DURABLE_TIMEOUT_ADMIN_OPTIONS_TYPE,
  /** A value to take the type of only (`typeof`): what `forRootAsync` takes. */
  ASYNC_OPTIONS_TYPE: DURABLE_TIMEOUT_ADMIN_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DurableTimeoutAdminOptions>({ moduleName: 'DurableTimeoutAdmin' })
  .setClassMethodName('forRoot')
  .setExtras<DurableTimeoutAdminExtras>({ path: DEFAULT_ADMIN_PATH }, (definition, extras) => ({
    ...definition,
    controllers: [adminControllerFor(resolveAdminPath(extras.path ?? DEFAULT_ADMIN_PATH), extras.guard)],
    providers: [...(definition.providers ?? []), { provide: DURABLE_TIMEOUT_ADMIN_HAS_GUARD, useValue: extras.guard !== undefined }],
  }))
  .build();

/** What `DurableTimeoutAdminModule.forRoot(...)` takes: the options plus the `path` and `guard` extras. */
export type DurableTimeoutAdminModuleRootOptions = typeof DURABLE_TIMEOUT_ADMIN_OPTIONS_TYPE;

/** What `DurableTimeoutAdminModule.forRootAsync(...)` takes: `imports`, `inject`, `useFactory`, plus `path` and `guard`. */
export type DurableTimeoutAdminModuleAsyncOptions = typeof DURABLE_TIMEOUT_ADMIN_ASYNC_OPTIONS_TYPE;
