import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages, type HandlerLocation } from '../durable-timeout.messages.js';

/** An `@OnTimeout` decorator was given something other than a topic name (thrown at `onModuleInit`). */
export class InvalidTimeoutHandlerError extends DurableTimeoutError {
  constructor(
    /** The method that carries the decorator. */
    readonly handler: HandlerLocation,
  ) {
    super(durableTimeoutMessages.invalidTopicName(handler));
  }
}
