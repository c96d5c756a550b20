import { randomUUID } from 'node:crypto';
import { RedisTimeoutStore, type ConnectionOptions } from '@durable-timeout/core';
import { ManualClock, MemoryTimeoutStore } from '@durable-timeout/core/testing';
import type { ModelSubjectFactory } from './check-store.js';

/** The memory store on a manual clock: time advances at once. */
export const memoryModelSubject: ModelSubjectFactory = async () => {
  const clock = new ManualClock();
  const store = new MemoryTimeoutStore(clock);
  return { store, advance: async (ms) => void clock.advanceBy(ms), dispose: () => store.close() };
};

/**
 * A Redis store on `connection` (a server URL, or `{ cluster }`) with a fresh key prefix per
 * sequence; time advances by real sleeps. A generous call deadline: the check is of what the store
 * does, not how fast, and a loaded machine must not fail it.
 */
export function redisModelSubject(connection: () => ConnectionOptions): ModelSubjectFactory {
  return async () => {
    const store = new RedisTimeoutStore({ connection: connection(), prefix: `m${randomUUID().slice(0, 8)}`, commandTimeoutMs: 15_000 });
    return { store, advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), dispose: () => store.close() };
  };
}
