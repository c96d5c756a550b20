/** Input validation of the engine, for `src/index.ts` to re-export what users may need. */
export { TOPIC_NAME_PATTERN } from './topic-name.js';
export { MAX_TIMEOUT_ID_LENGTH } from './timeout-id.js';
export { MAX_DELAY_MS } from './timing.js';
export { MAX_PAYLOAD_DEPTH } from './payload.js';
export { ENGINE_DEFAULTS, TOPIC_DEFAULTS, MAX_DRAIN_MS } from './defaults.js';
export { CATCH_UP_POLICIES, DEFAULT_CATCH_UP, MIN_EVERY_MS } from './recurrence.js';
