import * as core from '@durable-timeout/core';
import type { DurableTimeoutError } from '@durable-timeout/core';
import { AdminNotProtectedError } from './admin/errors/admin-not-protected.error.js';
import { InvalidAdminOptionsError } from './admin/errors/invalid-admin-options.error.js';
import { DuplicateTimeoutHandlerError } from './errors/duplicate-timeout-handler.error.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import { InvalidTimeoutHandlerError } from './errors/invalid-timeout-handler.error.js';
import { ModuleNotStartedError } from './errors/module-not-started.error.js';
import { TopicDeclarationConflictError } from './errors/topic-declaration-conflict.error.js';
import { UnregisteredFeatureTopicsError } from './errors/unregistered-feature-topics.error.js';
import { HealthCheckDeadlineError } from './terminus/errors/health-check-deadline.error.js';

/**
 * What an HTTP request that failed with a durable-timeout error should answer:
 *
 * - `retry`: nothing is wrong with the request; the store or this instance cannot take it right
 *   now (Redis not answering, replicas not confirming, a slot migration, a shutdown). A retry after
 *   a few seconds succeeds: 503 with `Retry-After`.
 * - `bad-request`: the request carried a bad id, delay or payload: 400 with the error's message.
 * - `application`: a mistake of the application or its set-up (an unknown topic, bad options),
 *   not of the request: left to Nest (500).
 */
export type DurableTimeoutHttpAnswer = 'retry' | 'bad-request' | 'application';

/**
 * A class of error thrown by the packages (what `instanceof` takes). An interface, not a
 * constructor type alias: the API reference cannot link to the signature of an alias.
 */
export interface DurableTimeoutErrorClass extends Function {
  /** The error class's prototype: every instance is a `DurableTimeoutError`. */
  readonly prototype: DurableTimeoutError;
}

/**
 * Every public error class of `@durable-timeout/core` and `@durable-timeout/nestjs`, with the HTTP
 * answer it stands for. `DurableTimeoutExceptionFilter` and the admin page answer from this table
 * alone; a test checks that every exported error class is in it.
 */
export const DURABLE_TIMEOUT_HTTP_ANSWERS: ReadonlyMap<DurableTimeoutErrorClass, DurableTimeoutHttpAnswer> = new Map<
  DurableTimeoutErrorClass,
  DurableTimeoutHttpAnswer
>([
  [core.RedisUnavailableError, 'retry'],
  [core.DurabilityUnconfirmedError, 'retry'],
  [core.TopicMigratingError, 'retry'],
  [core.TimeoutsStoppedError, 'retry'],
  [core.StoreClosedError, 'retry'],
  [core.InvalidTimeoutIdError, 'bad-request'],
  [core.InvalidDelayError, 'bad-request'],
  [core.InvalidPayloadError, 'bad-request'],
  [core.PayloadTooLargeError, 'bad-request'],
  // A cron expression, time zone or interval a request passed to schedules.upsert.
  [core.InvalidScheduleError, 'bad-request'],
  [core.DurableTimeoutError, 'application'],
  [core.UnknownTopicError, 'application'],
  [core.InvalidOptionsError, 'application'],
  [core.InvalidCodecKeyError, 'application'],
  // A stored payload this instance cannot decode: its codec or keys, not the request, must change.
  [core.PayloadDecodeError, 'application'],
  [core.InvalidStoreOptionError, 'application'],
  [core.InvalidConnectionError, 'application'],
  [core.InvalidClockTimeError, 'application'],
  [core.DuplicateHandlerError, 'application'],
  [core.TopicSlotsMismatchError, 'application'],
  [core.LeaseLostError, 'application'],
  [core.HandlerTimeoutError, 'application'],
  [core.TimeoutCancelledError, 'application'],
  [core.RedisReplyError, 'application'],
  [core.SlotMovedError, 'application'],
  [core.SlotLockedError, 'application'],
  [DuplicateTimeoutHandlerError, 'application'],
  [InvalidModuleOptionsError, 'application'],
  [InvalidTimeoutHandlerError, 'application'],
  [ModuleNotStartedError, 'application'],
  [TopicDeclarationConflictError, 'application'],
  [UnregisteredFeatureTopicsError, 'application'],
  [AdminNotProtectedError, 'application'],
  [InvalidAdminOptionsError, 'application'],
  [HealthCheckDeadlineError, 'application'],
]);

/** The error classes whose answer is `answer`. */
export function errorClassesAnswering(answer: DurableTimeoutHttpAnswer): DurableTimeoutErrorClass[] {
  return [...DURABLE_TIMEOUT_HTTP_ANSWERS].filter(([, given]) => given === answer).map(([errorClass]) => errorClass);
}

/**
 * The answer for `error`: that of its own class in the table, else of its nearest listed ancestor
 * (a subclass an application defines), else `undefined` (not an error of these packages).
 */
export function httpAnswerOf(error: unknown): DurableTimeoutHttpAnswer | undefined {
  if (!(error instanceof core.DurableTimeoutError)) return undefined;
  for (let proto: object | null = Object.getPrototypeOf(error) as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    const answer = DURABLE_TIMEOUT_HTTP_ANSWERS.get((proto as { constructor: DurableTimeoutErrorClass }).constructor);
    if (answer !== undefined) return answer;
  }
  return undefined;
}
