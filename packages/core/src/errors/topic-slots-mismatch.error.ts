import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/**
 * The `slots` option of a topic differs from the slot count its timeouts are stored with: started
 * as it is, this instance would look for timeouts in the wrong slots (miss some, fire others twice).
 * Change the option back, or move the topic's timeouts with `migrateSlots` first.
 */
export class TopicSlotsMismatchError extends DurableTimeoutError {
  constructor(
    readonly topic: string,
    /** The slot count this instance was configured with. */
    readonly configured: number,
    /** The slot count recorded in the store (the migration's target too, while one runs). */
    readonly recorded: string,
  ) {
    super(errorMessages.slotsMismatch(topic, configured, recorded));
  }
}
