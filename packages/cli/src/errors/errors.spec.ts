import { describe, expect, it } from '@jest/globals';
import { DurableTimeoutError } from '@durable-timeout/core';
import * as cli from '../index.js';

/** Every class the package exports whose instances are errors. */
const exportedErrorClasses = Object.entries(cli).filter(
  (entry): entry is [string, abstract new (...args: never[]) => Error] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

describe("the command line's exported errors", () => {
  it('all extend DurableTimeoutError, as every public error of the packages does', () => {
    expect(exportedErrorClasses.map(([name]) => name).sort()).toEqual(
      ['CliError', 'ConfirmationRequiredError', 'RedisUnreachableError', 'TimeoutFiringError', 'TimeoutNotFoundError', 'UsageError'],
    );
    const foreign = exportedErrorClasses.filter(([, errorClass]) => !(errorClass.prototype instanceof DurableTimeoutError)).map(([name]) => name);
    expect(foreign).toEqual([]);
  });
});
