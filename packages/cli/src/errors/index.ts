/** Every error class of the command line. */
export { CliError } from './cli.error.js';
export { UsageError } from './usage.error.js';
export { TimeoutNotFoundError } from './timeout-not-found.error.js';
export { ConfirmationRequiredError } from './confirmation-required.error.js';
export { TimeoutFiringError } from './timeout-firing.error.js';
export { RedisUnreachableError } from './redis-unreachable.error.js';
