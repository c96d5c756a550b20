import { Module, type DynamicModule } from '@nestjs/common';
import { AdminTokenGuard } from './admin-token.guard.js';
import { DURABLE_TIMEOUT_ADMIN_HAS_GUARD, DURABLE_TIMEOUT_ADMIN_SETTINGS } from './durable-timeout-admin.constants.js';
import {
  ConfigurableDurableTimeoutAdminModule,
  DURABLE_TIMEOUT_ADMIN_OPTIONS,
  type DurableTimeoutAdminModuleAsyncOptions,
  type DurableTimeoutAdminModuleRootOptions,
} from './durable-timeout-admin-module.definition.js';
import type { DurableTimeoutAdminOptions } from './durable-timeout-admin-options.interface.js';
import { DurableTimeoutAdminService } from './durable-timeout-admin.service.js';
import { resolveAdminSettings } from './durable-timeout-admin.settings.js';

/**
 * A small read-mostly page and its JSON API for operators: per topic pending / firing / dead counts
 * and the oldest overdue age, the slot spread, the next due timeouts, the dead letters with their
 * last error, and replay / purge buttons. Closed by default: it refuses to mount without a `guard`
 * or a `token`. Payloads are hidden unless `showPayloads` is set.
 *
 * ```ts
 * DurableTimeoutModule.forRoot({ ..., isGlobal: true }),
 * DurableTimeoutAdminModule.forRoot({ path: 'admin/timeouts', guard: AdminUsersGuard }),
 * // or a token from your secrets:
 * DurableTimeoutAdminModule.forRootAsync({ inject: [ConfigService], useFactory: (config) => ({ token: config.getOrThrow('ADMIN_TOKEN') }) }),
 * ```
 *
 * It injects the engine of `DurableTimeoutModule`, so register that one with `isGlobal: true`.
 */
@Module({
  providers: [
    {
      provide: DURABLE_TIMEOUT_ADMIN_SETTINGS,
      useFactory: resolveAdminSettings,
      inject: [DURABLE_TIMEOUT_ADMIN_OPTIONS, DURABLE_TIMEOUT_ADMIN_HAS_GUARD],
    },
    AdminTokenGuard,
    DurableTimeoutAdminService,
  ],
})
export class DurableTimeoutAdminModule extends ConfigurableDurableTimeoutAdminModule {
  /** The page and its API with options given here: `path` (default `timeouts`), `guard` or `token`, `showPayloads`. */
  static override forRoot(options: DurableTimeoutAdminModuleRootOptions): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * The page and its API with options from a factory that may inject other providers (`imports`,
   * `inject`, `useFactory`); `path` and `guard` shape the routes, so they are given here directly.
   */
  static override forRootAsync(options: DurableTimeoutAdminModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }
}

export type { DurableTimeoutAdminOptions };
