import { InvalidOptionsError } from './invalid-options.error.js';

/**
 * The options of a recurring schedule (`timeouts.schedules.upsert`, `@OnSchedule`) are invalid: a
 * cron expression that does not parse or never fires, an unknown time zone, an `everyMs` out of
 * range, both or neither of `cron` and `everyMs`, an unknown `catchUp`. `schedule` names the
 * schedule and `problem` says what is wrong; nothing was stored.
 */
export class InvalidScheduleError extends InvalidOptionsError {
  constructor(
    /** The schedule's name, as given. */
    readonly schedule: string,
    /** What is wrong, in a sentence that says what is accepted. */
    readonly problem: string,
  ) {
    super(`Recurring schedule "${schedule}": ${problem}`);
  }
}
