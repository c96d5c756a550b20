import { DurableTimeoutError } from './durable-timeout.error.js';

/**
 * The abort reason of `event.signal` (and the rejection of `event.extendLease`) when `cancel` or
 * `cancelMany` (on any instance) removed the timeout while this delivery's handler ran: the cancel
 * answered `firing`. The timeout is gone from the store, so whatever the handler does next is
 * neither acked nor retried nor dead-lettered; check `event.signal.aborted` before a side effect
 * to skip it. The notice travels on the wake-up channel and may be lost (a subscriber
 * reconnecting): the handler then runs on unaware, and the engine drops its ack as stale.
 */
export class TimeoutCancelledError extends DurableTimeoutError {}
