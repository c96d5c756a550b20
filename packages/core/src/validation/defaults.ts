import type { ResolvedTopicOptions } from '../types.js';

/** Defaults of every topic option, applied in this one place. */
export const TOPIC_DEFAULTS: Readonly<ResolvedTopicOptions> = Object.freeze({
  slots: 16,
  leaseMs: 30_000,
  maxAttempts: 16,
  backoff: Object.freeze({ baseMs: 1_000, capMs: 300_000 }),
  batchSize: 100,
  concurrency: 256,
  maxPayloadBytes: 64 * 1024,
  maxRunMs: 300_000,
  codec: null,
  late: undefined,
  rateLimit: undefined,
});

/** What a store's claim does with expired leases when the caller gives no policy: the topic defaults. */
export const DEFAULT_LEASE_EXPIRY: Readonly<Pick<ResolvedTopicOptions, 'maxAttempts' | 'backoff'>> = Object.freeze({
  maxAttempts: TOPIC_DEFAULTS.maxAttempts,
  backoff: TOPIC_DEFAULTS.backoff,
});

/** Defaults of the instance-wide options (`drainMs` is also the default of `stop()`). */
export const ENGINE_DEFAULTS = Object.freeze({
  prefix: 'dt',
  sweepIntervalMs: 60_000,
  commandTimeoutMs: 1_000,
  drainMs: 10_000,
});

/** Longest `drainMs` accepted (one hour). */
export const MAX_DRAIN_MS = 3_600_000;
