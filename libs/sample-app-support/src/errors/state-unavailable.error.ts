import { redisMessages } from '../redis/redis.messages.js';

/** Redis did not answer a state read or write (down, unreachable, too slow). Answered as 503. */
export class StateUnavailableError extends Error {
  constructor(cause: unknown) {
    super(redisMessages.stateUnavailable(cause instanceof Error ? cause.message : String(cause)), { cause });
    this.name = new.target.name;
  }
}

/**
 * Runs a Redis call, turning a failure to reach Redis into `StateUnavailableError`. An error Redis
 * itself replied (a script error) is a bug, not an outage, and passes through unchanged.
 */
export async function reachRedis<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && error.name === 'ReplyError') throw error;
    throw new StateUnavailableError(error);
  }
}
