import { DurableTimeoutError } from '../errors/durable-timeout.error.js';

/**
 * A call on an id reached a slot that a change of the topic's slot count moved: the id now lives
 * in `slotOf(id, slots)` of a topic of `slots` slots. The engine routes the call there by itself;
 * a custom store throws it from `schedule`, `cancel`, `get`, `replayDead` and `purgeDead`.
 */
export class SlotMovedError extends DurableTimeoutError {
  constructor(
    message: string,
    /** The slot count to route the id by. */
    readonly slots: number,
  ) {
    super(message);
  }
}
