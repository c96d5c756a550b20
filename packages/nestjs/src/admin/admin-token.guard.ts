import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { DURABLE_TIMEOUT_ADMIN_SETTINGS } from './durable-timeout-admin.constants.js';
import type { DurableTimeoutAdminSettings } from './durable-timeout-admin-options.interface.js';
import { adminMessages } from './durable-timeout-admin.messages.js';

interface HttpRequestLike {
  headers: Record<string, string | string[] | undefined>;
}

interface HttpResponseLike {
  header?(name: string, value: string): unknown;
}

/**
 * Admits a request that carries the module's token: `Authorization: Bearer <token>`, or HTTP Basic
 * with the token as password (any user name), which a browser asks for itself. Without a token
 * option it admits everything (the application's own guard protects the page). Refusals carry
 * `WWW-Authenticate`, so a browser shows its login prompt.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(DURABLE_TIMEOUT_ADMIN_SETTINGS) settings: DurableTimeoutAdminSettings) {
    this.expected = settings.token === undefined ? undefined : digest(settings.token);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.expected === undefined) return true;
    const http = context.switchToHttp();
    const presented = presentedToken(http.getRequest<HttpRequestLike>().headers['authorization']);
    // Compare digests of equal length in constant time: neither length nor content leaks through timing.
    if (presented !== undefined && timingSafeEqual(digest(presented), this.expected)) return true;
    http.getResponse<HttpResponseLike>().header?.('WWW-Authenticate', 'Basic realm="durable-timeout admin", charset="UTF-8"');
    throw new UnauthorizedException(adminMessages.unauthorized());
  }
}

/** The token of an Authorization header: a Bearer token, or the password of Basic credentials. */
export function presentedToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const [scheme, credentials] = value.trim().split(/\s+/, 2);
  if (!credentials) return undefined;
  if (/^bearer$/i.test(scheme!)) return credentials;
  if (!/^basic$/i.test(scheme!)) return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
