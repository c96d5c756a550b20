import { Logger } from '@nestjs/common';
import { InvalidConfigError } from '../errors/invalid-config.error.js';

/**
 * Runs the app's config loader; a bad environment variable ends the process with its one-line
 * explanation, not a stack trace.
 */
export function readConfigOrExit<TConfig>(load: () => TConfig): TConfig {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    new Logger('Bootstrap').fatal(error.message);
    process.exit(1);
  }
}
