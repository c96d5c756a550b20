import type { TopicOptions } from '@durable-timeout/nestjs';
import type { RidesConfig } from '../../config/rides.config.js';

/** Topic of the driver-match deadline: a WAITING trip gives up when nobody accepted it. The id is the trip id. */
export const DRIVER_MATCH_TOPIC = 'driver-match';

/**
 * Topic of the pickup deadline, the second deadline of a trip. The id is the trip id. Scheduled
 * on accept (the driver must reach the pickup), rescheduled on arrival (the rider must board),
 * cancelled when the ride starts.
 */
export const PICKUP_TOPIC = 'pickup';

/** The topics of the rides app. */
export type RidesTopic = typeof DRIVER_MATCH_TOPIC | typeof PICKUP_TOPIC;

/** Every topic, for validation and the dead-letter endpoints. */
export const RIDES_TOPICS: readonly RidesTopic[] = [DRIVER_MATCH_TOPIC, PICKUP_TOPIC];

/**
 * The topics' settings. Both retry a failing handler (the rider webhook down) with backoff from
 * TIMEOUT_RETRY_BASE_MS, and dead-letter it after TIMEOUT_MAX_ATTEMPTS for an operator to replay.
 */
export function ridesTopics(
  config: Pick<RidesConfig, 'TIMEOUT_LEASE_MS' | 'TIMEOUT_MAX_ATTEMPTS' | 'TIMEOUT_RETRY_BASE_MS'>,
): Record<RidesTopic, TopicOptions> {
  const options: TopicOptions = {
    leaseMs: config.TIMEOUT_LEASE_MS,
    maxAttempts: config.TIMEOUT_MAX_ATTEMPTS,
    backoff: { baseMs: config.TIMEOUT_RETRY_BASE_MS },
  };
  return { [DRIVER_MATCH_TOPIC]: options, [PICKUP_TOPIC]: options };
}
