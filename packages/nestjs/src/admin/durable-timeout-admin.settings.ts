import type { DurableTimeoutAdminOptions, DurableTimeoutAdminSettings } from './durable-timeout-admin-options.interface.js';
import { DEFAULT_ADMIN_PAGE_SIZE } from './durable-timeout-admin.constants.js';
import { adminMessages, MIN_TOKEN_LENGTH } from './durable-timeout-admin.messages.js';
import { AdminNotProtectedError } from './errors/admin-not-protected.error.js';
import { InvalidAdminOptionsError } from './errors/invalid-admin-options.error.js';

/**
 * Applies defaults and checks the admin options, once, when the module's providers are created:
 * without a guard and without a token the module refuses to mount (the application does not start).
 */
export function resolveAdminSettings(options: DurableTimeoutAdminOptions | undefined, hasGuard: boolean): DurableTimeoutAdminSettings {
  const { token, showPayloads, pageSize } = options ?? {};
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH)) {
    throw new InvalidAdminOptionsError(adminMessages.shortToken(typeof token === 'string' ? token.length : 0));
  }
  if (token === undefined && !hasGuard) throw new AdminNotProtectedError(adminMessages.notProtected());
  const rows = pageSize ?? DEFAULT_ADMIN_PAGE_SIZE;
  if (!Number.isInteger(rows) || rows < 1 || rows > 200) throw new InvalidAdminOptionsError(adminMessages.badPageSize(pageSize));
  return { token, showPayloads: showPayloads === true, pageSize: rows };
}

const PATH_PATTERN = /^\/?[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/?$/;

/** The mount path, checked when `forRoot` / `forRootAsync` is called. */
export function resolveAdminPath(path: unknown): string {
  if (typeof path !== 'string' || !PATH_PATTERN.test(path)) throw new InvalidAdminOptionsError(adminMessages.badPath(path));
  return path.replace(/^\/|\/$/g, '');
}
