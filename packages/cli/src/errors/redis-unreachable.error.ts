import { EXIT_CODES } from '../exit-codes.js';
import { CliError } from './cli.error.js';

/** Redis could not be reached in time, or refused the login or a command (ACL). Exit code 6. */
export class RedisUnreachableError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_CODES.unavailable, options);
  }
}
