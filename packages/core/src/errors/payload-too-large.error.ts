import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/** What would be stored of a payload (its UTF-8 JSON text, or with a codec its encoded text) is larger than the topic's `maxPayloadBytes`. */
export class PayloadTooLargeError extends DurableTimeoutError {
  constructor(
    readonly topic: string,
    /** Size of what would be stored, in bytes: the payload's UTF-8 JSON text, or with a codec its encoded text. */
    readonly bytes: number,
    /** The topic's `maxPayloadBytes`. */
    readonly limit: number,
    /** True when `bytes` is the size of the payload encoded by the topic's codec. */
    readonly encoded = false,
  ) {
    super(errorMessages.payloadTooLarge(topic, bytes, limit, encoded));
  }
}
