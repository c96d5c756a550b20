import type { TimeoutInfo } from '../types.js';
import { DurableTimeoutError } from './durable-timeout.error.js';
import { errorMessages } from './errors.messages.js';

/**
 * `get` found the timeout, but its stored payload could not be decoded: it was encoded by a codec
 * (see `PayloadCodec`) and this instance has no codec for its topic, or the codec refused it
 * (a key id it does not know, a wrong key, altered bytes), or what it gave back is not JSON. The
 * message names the cause, never the payload. `timeout` holds the rest of what was read, so a tool
 * can still show the entry. Configure the codec and keys the payload was written with to read it.
 */
export class PayloadDecodeError extends DurableTimeoutError {
  constructor(
    /** What was read of the timeout, its payload aside. */
    readonly timeout: Omit<TimeoutInfo<unknown>, 'payload' | 'payloadError'>,
    /** Why it could not be decoded, e.g. the key id is unknown. */
    readonly reason: string,
  ) {
    super(errorMessages.payloadDecode(timeout.topic, timeout.id, reason));
  }
}
