import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/** A payload's UTF-8 JSON text is larger than the topic's `maxPayloadBytes`. */
export class PayloadTooLargeError extends DurableTimeoutError {
  constructor(
    readonly topic: string,
    /** Size of the payload's JSON text in bytes (UTF-8). */
    readonly bytes: number,
    /** The topic's `maxPayloadBytes`. */
    readonly limit: number,
  ) {
    super(errorMessages.payloadTooLarge(topic, bytes, limit));
  }
}
