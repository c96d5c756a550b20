import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages } from '../durable-timeout.messages.js';

/**
 * The topics of a `DurableTimeoutModule.forFeature(...)` never reached an engine: the application
 * has no `forRoot` / `forRootAsync` (reason `no-engine`), or the feature's module was loaded after
 * the engine was created, lazily (reason `loaded-late`). Thrown by the feature module's `onModuleInit`.
 */
export class UnregisteredFeatureTopicsError extends DurableTimeoutError {
  constructor(
    /** The topics the feature declares that the engine does not know. */
    readonly topics: readonly string[],
    /** Why they are not registered. */
    readonly reason: 'no-engine' | 'loaded-late',
  ) {
    super(reason === 'no-engine' ? durableTimeoutMessages.featureWithoutEngine(topics) : durableTimeoutMessages.featureAfterBootstrap(topics));
  }
}
