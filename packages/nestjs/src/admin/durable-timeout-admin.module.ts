import { Module } from '@nestjs/common';
import { AdminTokenGuard } from './admin-token.guard.js';
import { DURABLE_TIMEOUT_ADMIN_HAS_GUARD, DURABLE_TIMEOUT_ADMIN_SETTINGS } from './durable-timeout-admin.constants.js';
import { ConfigurableDurableTimeoutAdminModule, DURABLE_TIMEOUT_ADMIN_OPTIONS } from './durable-timeout-admin-module.definition.js';
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
export class DurableTimeoutAdminModule extends ConfigurableDurableTimeoutAdminModule {}

export type { DurableTimeoutAdminOptions };
