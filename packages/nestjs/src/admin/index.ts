/**
 * `@durable-timeout/nestjs/admin`: an operator's page and JSON API for a Nest app, closed by default.
 */
export { DurableTimeoutAdminModule } from './durable-timeout-admin.module.js';
export {
  ConfigurableDurableTimeoutAdminModule,
  DURABLE_TIMEOUT_ADMIN_ASYNC_OPTIONS_TYPE,
  DURABLE_TIMEOUT_ADMIN_OPTIONS,
  DURABLE_TIMEOUT_ADMIN_OPTIONS_TYPE,
  type DurableTimeoutAdminModuleAsyncOptions,
  type DurableTimeoutAdminModuleRootOptions,
} from './durable-timeout-admin-module.definition.js';
export type { DurableTimeoutAdminExtras, DurableTimeoutAdminOptions, DurableTimeoutAdminSettings } from './durable-timeout-admin-options.interface.js';
export { ADMIN_CSRF_HEADER, DEFAULT_ADMIN_PATH } from './durable-timeout-admin.constants.js';
export { AdminTokenGuard } from './admin-token.guard.js';
export {
  DurableTimeoutAdminService,
  type AdminDeadLetter,
  type AdminSchedule,
  type AdminTimeout,
  type AdminTopicDetail,
} from './durable-timeout-admin.service.js';
export { AdminNotProtectedError } from './errors/admin-not-protected.error.js';
export { InvalidAdminOptionsError } from './errors/invalid-admin-options.error.js';
