import { DurableTimeoutError } from '@durable-timeout/core';
import { durableTimeoutMessages } from '../durable-timeout.messages.js';

/**
 * `DurableTimeoutModule` options that cannot work (thrown when the module's providers are created).
 * The core's `InvalidOptionsError` that names the option is its `cause`.
 */
export class InvalidModuleOptionsError extends DurableTimeoutError {
  constructor(
    /** What is wrong with the options (the core's message when the core refused them). */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(durableTimeoutMessages.invalidOptions(problem), options);
  }
}
