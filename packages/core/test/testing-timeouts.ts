import { afterEach } from '@jest/globals';
import { createTestingTimeouts, type TestingTimeoutsOptions } from '../src/testing/create-testing-timeouts.js';
import type { DurableTimeouts } from '../src/durable-timeouts.js';

/** `createTestingTimeouts`, plus `track` for an engine a test makes by itself. */
export interface StoppedAfterEach {
  <T = any>(options: TestingTimeoutsOptions<T>): ReturnType<typeof createTestingTimeouts<T>>;
  /** Stops `timeouts` after the test too. */
  track(timeouts: DurableTimeouts): void;
}

/**
 * `createTestingTimeouts` for a spec file, with every engine it made (or was given to `track`)
 * stopped after each test, even one that failed. Call it once at the top of the file (it
 * registers the `afterEach`).
 */
export function stoppedAfterEach(): StoppedAfterEach {
  const opened: DurableTimeouts[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((timeouts) => timeouts.stop({ drainMs: 0 })));
  });
  const create = <T = any>(options: TestingTimeoutsOptions<T>) => {
    const testing = createTestingTimeouts(options);
    opened.push(testing.timeouts);
    return testing;
  };
  return Object.assign(create, { track: (timeouts: DurableTimeouts) => void opened.push(timeouts) });
}
