import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages } from '../durable-timeout.messages.js';

/**
 * The same topic is declared twice (by `forRoot` and a `forFeature`, or by two `forFeature`
 * calls) with different options. Thrown at bootstrap, when the engine is created.
 */
export class TopicDeclarationConflictError extends DurableTimeoutError {
  constructor(
    /** The topic declared twice. */
    readonly topic: string,
    /** Who declared it first and who again, e.g. `DurableTimeoutModule.forRoot` and `OrdersModule`. */
    readonly declaredBy: readonly [string, string],
  ) {
    super(
      declaredBy[0] === declaredBy[1]
        ? durableTimeoutMessages.topicDeclaredAgainByOneModule(topic, declaredBy[0])
        : durableTimeoutMessages.topicDeclaredTwice(topic, declaredBy),
    );
  }
}
