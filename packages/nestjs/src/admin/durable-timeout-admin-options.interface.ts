import type { CanActivate, Type } from '@nestjs/common';

/**
 * Options of `DurableTimeoutAdminModule.forRoot` (or returned by the `forRootAsync` factory).
 * At least one of `token` and the `guard` extra is required: the module refuses to mount an open page.
 */
export interface DurableTimeoutAdminOptions {
  /**
   * A secret of at least 16 characters. Browsers are asked for it with HTTP Basic authentication
   * (any user name, the token as password); scripts send `Authorization: Bearer <token>`.
   */
  token?: string;
  /** Show payloads on the page and in the API. Default false: payloads may hold personal data. */
  showPayloads?: boolean;
  /** Rows of the pending and dead-letter tables per page (1 to 200). Default 25. */
  pageSize?: number;
}

/** Extra options of `forRoot` / `forRootAsync` that shape the mounted routes. */
export interface DurableTimeoutAdminExtras {
  /** Route path of the page, under the application's global prefix. Default `timeouts`. */
  path?: string;
  /**
   * Your own guard (a class Nest instantiates in this module, or an instance), run on every
   * route of the page and its API: e.g. the guard that admits your admin users. Its providers must
   * be resolvable here: global, or listed in `imports`.
   */
  guard?: Type<CanActivate> | CanActivate;
}

/** The settings after defaults and validation. */
export interface DurableTimeoutAdminSettings {
  token: string | undefined;
  showPayloads: boolean;
  pageSize: number;
}
