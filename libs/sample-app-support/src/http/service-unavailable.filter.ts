import { ArgumentsHost, Catch, ServiceUnavailableException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { RedisUnavailableError, TimeoutsStoppedError } from '@durable-timeout/core';
import { redisMessages } from '../redis/redis.messages.js';
import { StateUnavailableError } from '../errors/state-unavailable.error.js';

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Answers 503 with `Retry-After` when the request could not be served for now: Redis unreachable
 * (state or timeouts), or this instance shutting down (its timeouts stopped, others still run).
 * A load balancer or client retries instead of treating it as a bug (500).
 */
@Catch(StateUnavailableError, RedisUnavailableError, TimeoutsStoppedError)
export class ServiceUnavailableFilter extends BaseExceptionFilter {
  /** Converts the error and lets Nest write the usual `{ statusCode, message, error }` body. */
  override catch(error: StateUnavailableError | RedisUnavailableError | TimeoutsStoppedError, host: ArgumentsHost): void {
    const message =
      error instanceof TimeoutsStoppedError
        ? redisMessages.shuttingDown()
        : error instanceof RedisUnavailableError
          ? redisMessages.timeoutsUnavailable()
          : error.message;
    const response = host.switchToHttp().getResponse<{ setHeader(name: string, value: string): void }>();
    response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    super.catch(new ServiceUnavailableException(message), host);
  }
}
