import { describe, expect, it } from '@jest/globals';
import * as core from '@durable-timeout/core';
import * as nest from './index.js';

describe('@durable-timeout/nestjs entry point', () => {
  it("re-exports every error class of the core, so a Nest app needs no import of '@durable-timeout/core'", () => {
    const coreErrors = Object.entries(core)
      .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
      .map(([name]) => name);
    expect(coreErrors).toEqual(expect.arrayContaining(['DurableTimeoutError', 'RedisUnavailableError', 'InvalidDelayError']));
    for (const name of coreErrors) expect({ name, value: (nest as Record<string, unknown>)[name] }).toEqual({ name, value: core[name as keyof typeof core] });
  });

  it('re-exports the engine class for @Inject(DURABLE_TIMEOUTS)', () => {
    expect(nest.DurableTimeouts).toBe(core.DurableTimeouts);
  });
});
