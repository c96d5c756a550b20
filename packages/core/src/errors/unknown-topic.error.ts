import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/**
 * A call (or an integration such as a Nest `@OnTimeout` method) named a topic that is not in the
 * `topics` option of this instance.
 */
export class UnknownTopicError extends DurableTimeoutError {
  /** The topics this instance was configured with. */
  readonly known: readonly string[];

  constructor(
    /** The topic that was asked for. */
    readonly topic: string,
    known: readonly string[],
    /** `message`: a text that also says where the topic was named (integrations use it). */
    options: { message?: string } = {},
  ) {
    super(options.message ?? errorMessages.unknownTopic(topic, known));
    this.known = [...known];
  }
}
