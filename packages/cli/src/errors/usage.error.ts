import { EXIT_CODES } from '../exit-codes.js';
import { CliError } from './cli.error.js';

/** Bad arguments or settings; the message says what to pass instead. Exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.usage);
  }
}
