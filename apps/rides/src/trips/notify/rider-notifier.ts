import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { RidesConfig } from '../../config/rides.config.js';
import type { TripStatus } from '../trip.model.js';
import { tripsMessages } from '../trips.messages.js';
import { RiderNotificationError } from './rider-notification.error.js';

/** How long the webhook may take to answer. */
const WEBHOOK_TIMEOUT_MS = 2_000;

/** The endings a rider is told about: the trip ended without a ride. */
export type RiderNotice = Extract<TripStatus, 'DRIVER_NOT_FOUND' | 'RIDER_NO_SHOW'>;

/**
 * Tells a rider's app that their trip ended without a ride, by `POST RIDER_WEBHOOK_URL` with
 * `{ tripId, status }` (a push-notification service, say). Delivery is at least once: a timeout
 * retried after a failure sends it again with the same `Idempotency-Key`, for the receiver to drop.
 */
@Injectable()
export class RiderNotifier {
  private readonly logger = new Logger('RiderNotifier');
  private readonly url: string | undefined;

  constructor(config: ConfigService<RidesConfig, true>) {
    this.url = config.get('RIDER_WEBHOOK_URL', { infer: true });
  }

  /**
   * Sends the notice; without RIDER_WEBHOOK_URL only logs it. Throws `RiderNotificationError` when
   * the webhook does not answer 2xx within 2 s (or `signal` aborts): the timeout is then retried.
   */
  async notify(tripId: string, status: RiderNotice, signal?: AbortSignal): Promise<void> {
    if (this.url === undefined) {
      this.logger.log(tripsMessages.riderNotificationSkipped(tripId, status));
      return;
    }
    const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `${tripId}:${status}` },
        body: JSON.stringify({ tripId, status }),
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      throw new RiderNotificationError(tripId, error instanceof Error ? error.message : String(error));
    }
    await response.body?.cancel();
    if (!response.ok) throw new RiderNotificationError(tripId, `the webhook answered HTTP ${response.status}`);
    this.logger.log(tripsMessages.riderNotified(tripId, status));
  }
}
