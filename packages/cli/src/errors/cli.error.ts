import { DurableTimeoutError } from '@durable-timeout/core';
import type { ExitCode } from '../exit-codes.js';

/** Base class of the command line's own errors: each carries the exit code the process ends with. */
export class CliError extends DurableTimeoutError {
  constructor(
    message: string,
    /** The code the process exits with (`EXIT_CODES`). */
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
