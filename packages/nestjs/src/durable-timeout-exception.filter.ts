import { ArgumentsHost, BadRequestException, Catch, HttpException, ServiceUnavailableException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { DurableTimeoutError, TimeoutsStoppedError, StoreClosedError, TopicMigratingError } from '@durable-timeout/core';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
import { errorClassesAnswering, httpAnswerOf } from './durable-timeout-http-errors.js';

/** Seconds the `Retry-After` header of a 503 asks a client to wait, unless a subclass changes it. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * The errors `DurableTimeoutExceptionFilter` answers: those `DURABLE_TIMEOUT_HTTP_ANSWERS` marks
 * `retry` or `bad-request`. Any other error keeps Nest's usual handling.
 */
export type DurableTimeoutHttpError = DurableTimeoutError;

/**
 * Turns the errors of `TimeoutScheduler` calls into the HTTP answers a client can act on, in
 * Nest's usual `{ statusCode, message, error }` body, from one table (`DURABLE_TIMEOUT_HTTP_ANSWERS`):
 *
 * - retryable errors: `RedisUnavailableError` (Redis did not answer in time),
 *   `DurabilityUnconfirmedError` (the `durability` option: the replicas did not confirm the write),
 *   `TopicMigratingError` (a slot migration is moving the id's slot), `TimeoutsStoppedError` and
 *   `StoreClosedError` (this instance is shutting down): 503 with `Retry-After`, so a client or
 *   load balancer retries instead of treating it as a bug. The body never shows Redis details.
 * - bad input: `InvalidTimeoutIdError`, `InvalidDelayError`, `InvalidPayloadError`,
 *   `PayloadTooLargeError` (the request carried a bad id, delay or payload): 400 with the error's
 *   message, which names the problem and never contains payload data.
 *
 * Other errors (an unknown topic is a bug of the application, not of the request) keep Nest's
 * handling. Register it for the whole application with
 * `providers: [{ provide: APP_FILTER, useClass: DurableTimeoutExceptionFilter }]`, or per
 * controller with `@UseFilters(DurableTimeoutExceptionFilter)`. HTTP only: in other contexts the
 * error is thrown on unchanged.
 */
@Catch(...errorClassesAnswering('retry'), ...errorClassesAnswering('bad-request'))
export class DurableTimeoutExceptionFilter extends BaseExceptionFilter {
  /** Value of `Retry-After` on a 503, in seconds. Override in a subclass to change it. */
  protected readonly retryAfterSeconds: number = DEFAULT_RETRY_AFTER_SECONDS;

  /** Writes the HTTP answer for `error` (see the class description). */
  override catch(error: DurableTimeoutHttpError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    const exception = this.toHttpException(error);
    if (exception.getStatus() === 503) {
      const adapter = this.httpAdapterHost?.httpAdapter ?? this.applicationRef;
      adapter?.setHeader(host.switchToHttp().getResponse(), 'Retry-After', String(this.retryAfterSeconds));
    }
    super.catch(exception, host);
  }

  /** The HTTP exception that stands for `error`. */
  protected toHttpException(error: DurableTimeoutHttpError): HttpException {
    if (httpAnswerOf(error) === 'bad-request') return new BadRequestException(error.message);
    if (error instanceof TimeoutsStoppedError || error instanceof StoreClosedError) {
      return new ServiceUnavailableException(durableTimeoutMessages.shuttingDown());
    }
    if (error instanceof TopicMigratingError) return new ServiceUnavailableException(durableTimeoutMessages.migrating());
    return new ServiceUnavailableException(durableTimeoutMessages.storageUnavailable());
  }
}
