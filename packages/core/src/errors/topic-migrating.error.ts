import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/**
 * A call on an id waited `commandTimeoutMs` for a slot that a change of the topic's slot count is
 * moving. Retrying is safe (`schedule` is an upsert). When it lasts, the migration stopped half-way:
 * run `migrateSlots` (or `durable-timeout migrate-slots`) again to finish it.
 */
export class TopicMigratingError extends DurableTimeoutError {
  constructor(
    readonly topic: string,
    /** The slot count the topic is being moved to. */
    readonly slots: number,
    waitedMs: number,
  ) {
    super(errorMessages.topicMigrating(topic, slots, waitedMs));
  }
}
