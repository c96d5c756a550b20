import { EXIT_CODES } from '../exit-codes.js';
import { CliError } from './cli.error.js';

/** `cancel` found the timeout firing (a handler held it): it is removed and the running handler told to stop. Exit code 5. */
export class TimeoutFiringError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.conflict);
  }
}
