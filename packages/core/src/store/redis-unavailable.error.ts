import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * Redis did not answer in time (down, unreachable, paused or overloaded). Thrown by the
 * interactive operations (`schedule`, `cancel`, `get`, stats and dead letters, `ping`) after about
 * `commandTimeoutMs` instead of queueing the call until Redis returns. When it was thrown after the
 * command was sent (`mayHaveApplied`), the command may have taken effect, or may still take
 * effect later; `schedule` is an upsert, so retrying it is safe. During a failover the store sends
 * refused calls again within `commandTimeoutMs` before it gives up with this error (`failover` is
 * then true).
 */
export class RedisUnavailableError extends DurableTimeoutError {
  /** The store operation that failed, e.g. `schedule`. */
  readonly operation: string;
  /**
   * True when Redis refused the call because a failover was in progress (MOVED, CLUSTERDOWN,
   * TRYAGAIN, READONLY, LOADING, MASTERDOWN, or NOREPLICAS from a primary cut off from its replicas)
   * and it was still refused at the end of its retries:
   * it did not take effect, and it can be retried once the new primary serves.
   */
  readonly failover: boolean;
  /**
   * False only when the call certainly did not run: it never left this process (the connection
   * was not there) or Redis refused it (a failover refusal). True when it was sent and no answer
   * came (a timeout, a connection lost meanwhile): it may have run, or may still run; a `schedule`
   * may then be stored and fire. Retrying is safe either way (`schedule` is an upsert, `cancel`
   * idempotent); a caller that must know reads the timeout back with `get` once Redis answers.
   */
  readonly mayHaveApplied: boolean;

  constructor(message: string, operation: string, options?: { cause?: unknown; failover?: boolean; mayHaveApplied?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.operation = operation;
    this.failover = options?.failover ?? false;
    this.mayHaveApplied = options?.mayHaveApplied ?? true;
  }
}
