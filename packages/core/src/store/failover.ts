import { RedisUnavailableError } from './redis-unavailable.error.js';

/**
 * Errors Redis answers while a failover moves a primary (Cluster or Sentinel), and the retry of
 * the store's script calls across them. Every reply below means the command was refused, not run
 * (a script that meets READONLY stops at its first write, before it changed anything), so sending
 * it again is safe; a lost connection is not in this list, since a command sent on it may have run.
 */

/** Replies of a failover in progress, by the word Redis starts them with. */
export type FailoverReply = 'MOVED' | 'ASK' | 'TRYAGAIN' | 'CLUSTERDOWN' | 'READONLY' | 'LOADING' | 'MASTERDOWN' | 'NOREPLICAS';

// NOREPLICAS: a primary with `min-replicas-to-write` that lost its replicas (cut off from them, as
// in a partition) refuses every write, a script's at its first write, until they are back or a
// failover replaces it.
const FAILOVER_REPLY = /^(?:ERR\s+)?(MOVED|ASK|TRYAGAIN|CLUSTERDOWN|READONLY|LOADING|MASTERDOWN|NOREPLICAS)\b/;
/** A script that reached a replica: Redis wraps the refusal of its first write. */
const SCRIPT_READONLY = /\bREADONLY You can't write against a read only replica/i;

/** The failover reply `error` carries, or undefined for any other error. */
export function failoverReply(error: unknown): FailoverReply | undefined {
  if (!(error instanceof Error)) return undefined;
  const match = FAILOVER_REPLY.exec(error.message);
  if (match) return match[1] as FailoverReply;
  return SCRIPT_READONLY.test(error.message) ? 'READONLY' : undefined;
}

/**
 * Whether `error`, as a store call rejected with it, is a symptom of a failover in progress: a
 * failover reply, or `RedisUnavailableError` after the store's retries across one. What the engine
 * asks to tell a failover (a warning for a while) from an outage.
 */
export function isFailoverSymptom(error: unknown): boolean {
  return (error instanceof RedisUnavailableError && error.failover) || failoverReply(error) !== undefined;
}

/** What the retry needs from the store: the deadline, and how to learn the new topology. */
export interface FailoverRetryOptions {
  /** How long after the first attempt the call may still be sent again, in ms. */
  budgetMs: number;
  /**
   * Called once per refused attempt before the next one, e.g. to refresh the cluster's slot map
   * (MOVED) or reconnect to the current primary (READONLY). Errors are ignored.
   */
  recover?: (reply: FailoverReply) => void;
}

/** Delay before the next attempt: short at first (a MOVED is usually fixed by one refresh), then up to 100 ms. */
export function failoverRetryDelay(attempt: number): number {
  return Math.min(10 * 2 ** attempt, 100);
}

/**
 * Runs `call`, sending it again while it is refused with a failover reply and `budgetMs` has not
 * passed; then rethrows the last refusal (the caller maps it to `RedisUnavailableError`). Any
 * other error is thrown at once.
 */
export async function retryDuringFailover<T>(call: () => Promise<T>, options: FailoverRetryOptions): Promise<T> {
  const stopAt = performance.now() + options.budgetMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const reply = failoverReply(error);
      if (reply === undefined) throw error;
      const delay = failoverRetryDelay(attempt);
      if (performance.now() + delay >= stopAt) throw error;
      try {
        options.recover?.(reply);
      } catch {
        // recovering is best effort: the next attempt tells
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
