import { DurableTimeoutError } from './durable-timeout.error.js';

/** A second handler was registered for a topic in one instance (one handler per topic). */
export class DuplicateHandlerError extends DurableTimeoutError {}
