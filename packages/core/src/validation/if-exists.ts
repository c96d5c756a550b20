import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { ScheduleIfExists } from '../types.js';

const MODES: readonly ScheduleIfExists[] = ['replace', 'keep', 'earlier', 'later'];

/**
 * Validates the `ifExists` option of `schedule`: undefined (replace) or one of the four modes.
 * Returns undefined for `replace`, so the common call carries nothing extra to the store.
 */
export function validateIfExists(value: unknown): Exclude<ScheduleIfExists, 'replace'> | undefined {
  if (value === undefined || value === 'replace') return undefined;
  if (typeof value === 'string' && (MODES as readonly string[]).includes(value)) return value as Exclude<ScheduleIfExists, 'replace'>;
  throw new InvalidOptionsError(errorMessages.invalidOption('ifExists', value, `use one of ${MODES.map((mode) => `'${mode}'`).join(', ')} (default 'replace')`));
}
