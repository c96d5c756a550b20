import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages } from '../durable-timeout.messages.js';

/** `waitUntilReady()` was awaited but the module's bootstrap failed; the bootstrap's error is its `cause`. */
export class ModuleNotStartedError extends DurableTimeoutError {
  constructor(options?: { cause?: unknown }) {
    super(durableTimeoutMessages.notStarted(), options);
  }
}
