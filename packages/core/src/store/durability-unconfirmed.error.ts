import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * `durability` is on with `onUnavailable: 'refuse'` and Redis could not confirm within
 * `durability.timeoutMs` that a `schedule` or `cancel` reached `required` replicas. The write was
 * applied on the primary (it is visible and fires as usual) but a failover now could lose it.
 * Retrying is safe (`schedule` is an upsert, `cancel` is idempotent); a retry is confirmed once
 * enough replicas are connected again.
 */
export class DurabilityUnconfirmedError extends DurableTimeoutError {
  /** The store operation, e.g. `schedule`. */
  readonly operation: string;
  /** Replicas the option asks for. */
  readonly required: number;
  /** Replicas that confirmed the write in time. */
  readonly confirmed: number;

  constructor(message: string, operation: string, required: number, confirmed: number) {
    super(message);
    this.operation = operation;
    this.required = required;
    this.confirmed = confirmed;
  }
}
