import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/** A call named a topic that is not in the `topics` option of this instance. */
export class UnknownTopicError extends DurableTimeoutError {
  constructor(
    /** The topic that was asked for. */
    readonly topic: string,
    known: readonly string[],
  ) {
    super(errorMessages.unknownTopic(topic, known));
  }
}
