import { Logger } from '@nestjs/common';
import type { TimeoutLogger } from '@durable-timeout/core';
import { DURABLE_TIMEOUT_LOGGER_CONTEXT } from './durable-timeout.constants.js';

/** Context keys never written to a log line, whatever the caller passes. */
const HIDDEN_KEYS = new Set(['payload']);

/**
 * Hands the engine's log lines to Nest's `Logger` (context `DurableTimeouts`), so they follow the
 * application's logger and log levels. The engine's context (topic, id, attempt, ...) is appended
 * as `key=value` pairs; a `payload` key is dropped so payloads never reach a log.
 */
export class NestTimeoutLogger implements TimeoutLogger {
  constructor(private readonly logger: Logger = new Logger(DURABLE_TIMEOUT_LOGGER_CONTEXT)) {}

  /** Debug line (shown when the application enables Nest's `debug` level). */
  debug(message: string, context?: Record<string, unknown>): void {
    this.logger.debug(formatLogLine(message, context));
  }

  /** Informational line. */
  log(message: string, context?: Record<string, unknown>): void {
    this.logger.log(formatLogLine(message, context));
  }

  /** Warning line. */
  warn(message: string, context?: Record<string, unknown>): void {
    this.logger.warn(formatLogLine(message, context));
  }

  /** Error line, with the stack of a context `error` when there is one. */
  error(message: string, context?: Record<string, unknown>): void {
    const error = context?.['error'];
    const line = formatLogLine(message, context);
    if (error instanceof Error && error.stack) this.logger.error(line, error.stack);
    else this.logger.error(line);
  }
}

/** `message key=value key=value`, skipping payloads and undefined values. */
export function formatLogLine(message: string, context?: Record<string, unknown>): string {
  if (!context) return message;
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(context)) {
    if (HIDDEN_KEYS.has(key) || value === undefined) continue;
    pairs.push(`${key}=${formatValue(value)}`);
  }
  return pairs.length > 0 ? `${message} ${pairs.join(' ')}` : message;
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) {
    return String(value);
  }
  // Objects may embed user data: show only their shape.
  return Array.isArray(value) ? `[${value.length} items]` : '[object]';
}
