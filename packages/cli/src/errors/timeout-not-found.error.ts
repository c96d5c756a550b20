import { EXIT_CODES } from '../exit-codes.js';
import { CliError } from './cli.error.js';

/** The timeout (or every dead letter) a command named does not exist. Exit code 3. */
export class TimeoutNotFoundError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.notFound);
  }
}
