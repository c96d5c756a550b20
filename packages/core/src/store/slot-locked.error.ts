import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * A call on an id reached a slot whose entries a change of the topic's slot count is moving right
 * now. The engine waits and calls again (within `commandTimeoutMs`); a custom store throws it from
 * `schedule`, `cancel`, `get`, `replayDead` and `purgeDead`.
 */
export class SlotLockedError extends DurableTimeoutError {
  constructor(
    message: string,
    /** The slot count the migration moves the topic to. */
    readonly slots: number,
  ) {
    super(message);
  }
}
