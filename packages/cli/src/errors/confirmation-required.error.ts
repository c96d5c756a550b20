import { EXIT_CODES } from '../exit-codes.js';
import { CliError } from './cli.error.js';

/** A command that changes data ran without `--yes`; nothing was changed. Exit code 4. */
export class ConfirmationRequiredError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.notConfirmed);
  }
}
