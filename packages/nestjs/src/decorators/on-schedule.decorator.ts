import { SetMetadata } from '@nestjs/common';
import type { JsonValue, RecurringScheduleOptions, ScheduleOccurrence } from '@durable-timeout/core';
import { ON_SCHEDULE_METADATA } from '../durable-timeout.constants.js';

/** What `@OnSchedule` stores on a method: the schedule's name and options. */
export interface OnScheduleMetadata {
  name: string;
  options: RecurringScheduleOptions;
}

/**
 * Marks a provider (or controller) method as the handler of a recurring schedule, and declares the
 * schedule: at module init the application upserts it (`timeouts.schedules.upsert`; unchanged when
 * its options are the same, so every instance may declare it) and registers the method. Each
 * occurrence runs once across all instances; the method receives a `ScheduleOccurrence`, and
 * returning acknowledges it (the next occurrence is written with the ack) while throwing retries it.
 *
 * The topic `schedules` must be configured in `DurableTimeoutModule`. One method per schedule name.
 * Bad options (a cron expression that does not parse, an unknown time zone) make the bootstrap fail
 * with `InvalidScheduleError`, before anything is stored or started. See docs/SCHEDULES.md.
 *
 * @example
 * ```ts
 * @OnSchedule('nightly-report', { cron: '0 2 * * *', timeZone: 'Europe/Berlin' })
 * async nightlyReport(occurrence: ScheduleOccurrence) { ... }
 * ```
 */
export function OnSchedule<TPayload extends JsonValue = JsonValue>(
  name: string,
  options: RecurringScheduleOptions<TPayload>,
): (target: object, key: string | symbol, descriptor: { value?: (occurrence: ScheduleOccurrence<TPayload>) => unknown }) => void {
  const metadata: OnScheduleMetadata = { name, options };
  return SetMetadata(ON_SCHEDULE_METADATA, metadata);
}
