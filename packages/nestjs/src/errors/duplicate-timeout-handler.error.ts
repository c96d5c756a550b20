import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages, type HandlerLocation } from '../durable-timeout.messages.js';

/** Two `@OnTimeout` methods claim the same topic in one application (thrown at `onModuleInit`). */
export class DuplicateTimeoutHandlerError extends DurableTimeoutError {
  constructor(
    /** The topic both methods handle. */
    readonly topic: string,
    /** The two methods, in the order they were found. */
    readonly handlers: readonly [HandlerLocation, HandlerLocation],
  ) {
    super(durableTimeoutMessages.duplicateHandler(topic, handlers[0], handlers[1]));
  }
}
