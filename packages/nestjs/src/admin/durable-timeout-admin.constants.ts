/** Injection token of the admin module's resolved settings (`DurableTimeoutAdminSettings`). */
export const DURABLE_TIMEOUT_ADMIN_SETTINGS = 'durable-timeout:admin-settings';

/** Injection token: whether the module was given a guard of the application's own. */
export const DURABLE_TIMEOUT_ADMIN_HAS_GUARD = 'durable-timeout:admin-has-guard';

/** Header every change (replay, purge) must carry: a cross-site form or image cannot send it. */
export const ADMIN_CSRF_HEADER = 'x-durable-timeout-admin';

/** Default mount path of the page. */
export const DEFAULT_ADMIN_PATH = 'timeouts';

/** Default number of rows of the pending and dead-letter tables. */
export const DEFAULT_ADMIN_PAGE_SIZE = 25;
