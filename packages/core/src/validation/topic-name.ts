import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';

/** What a topic name may be: it appears in Redis key names and channels. */
export const TOPIC_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Throws `InvalidOptionsError` unless `topic` matches `TOPIC_NAME_PATTERN`. */
export function assertTopicName(topic: string): void {
  if (!TOPIC_NAME_PATTERN.test(topic)) throw new InvalidOptionsError(errorMessages.invalidTopicName(topic));
}
