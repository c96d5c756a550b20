import type { Logger } from '@nestjs/common';
import type { TimeoutScheduler } from '@durable-timeout/nestjs';
import { timeoutsMessages } from './timeouts.messages.js';

/**
 * Cancels the timeout of a deadline that a state change just made pointless (the order was paid,
 * the driver arrived). Never throws: the change is already applied, and a timeout that could not
 * be cancelled (Redis blip) fires later and its handler's compare-and-set changes nothing. A
 * `firing` result is fine for the same reason.
 */
export async function cancelSupersededTimeout(timeouts: TimeoutScheduler, topic: string, id: string, logger: Logger): Promise<void> {
  try {
    const result = await timeouts.cancel(topic, id);
    logger.debug(timeoutsMessages.cancelled(topic, id, result));
  } catch (error) {
    logger.warn(timeoutsMessages.cancelFailed(topic, id, error instanceof Error ? error.message : String(error)));
  }
}
