/**
 * Redis did not answer in time (down, unreachable, paused or overloaded). Thrown by the
 * interactive operations (`schedule`, `cancel`, `get`, stats and dead letters, `ping`) after about
 * `commandTimeoutMs` instead of queueing the call until Redis returns. When it was thrown after the
 * command was sent, the command may still take effect later; `schedule` is an upsert, so retrying
 * it is safe.
 */
export class RedisUnavailableError extends Error {
  /** The store operation that failed, e.g. `schedule`. */
  readonly operation: string;

  constructor(message: string, operation: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.operation = operation;
  }
}
