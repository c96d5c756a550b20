import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { ConnectionOptions, DurabilityOptions, DurableTimeoutsOptions, LateAction, LatePolicy, PayloadCodec } from '../types.js';
import type { RateLimitOptions, ResolvedTopicOptions, TimeoutLogger, TopicOptions } from '../types.js';
import { assertTopicName } from './topic-name.js';
import { MAX_DELAY_MS } from './timing.js';
import { ENGINE_DEFAULTS, MAX_DRAIN_MS, TOPIC_DEFAULTS } from './defaults.js';
import { checkDurability } from './durability.js';

/** The store option as given (any object with the port's methods). */
type GivenStore = NonNullable<DurableTimeoutsOptions['store']>;

/** `new DurableTimeouts(...)` options after defaults and validation. */
export interface ResolvedOptions {
  prefix: string;
  topics: ReadonlyMap<string, ResolvedTopicOptions>;
  sweepIntervalMs: number;
  commandTimeoutMs: number;
  drainMs: number;
  logger: TimeoutLogger | null;
  store: GivenStore | undefined;
  connection: ConnectionOptions | undefined;
  durability: DurabilityOptions | undefined;
}

const TOPIC_OPTION_NAMES = ['slots', 'leaseMs', 'maxAttempts', 'backoff', 'batchSize', 'concurrency', 'maxPayloadBytes', 'maxRunMs', 'codec', 'late', 'rateLimit'];
const RATE_LIMIT_OPTION_NAMES = ['perSecond', 'burst'];
const LATE_OPTION_NAMES = ['afterMs', 'action'];
const LATE_ACTIONS: readonly LateAction[] = ['fire', 'dead-letter', 'skip'];
/** Largest `late.afterMs` (a year). */
const MAX_LATE_AFTER_MS = 31_536_000_000;
const BACKOFF_OPTION_NAMES = ['baseMs', 'capMs'];
const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;
/** What a `store` option must have: its life's methods, and each role with the methods the engine calls first. */
const STORE_METHODS = ['init', 'subscribe', 'ping', 'close'] as const;
const STORE_ROLES = {
  writes: ['schedule', 'cancel'],
  deliveries: ['claim', 'ackMany', 'fail', 'release'],
  reads: ['get'],
  layout: ['readLayout', 'claimLayout'],
} as const;

/** Validates `options` once and fills in every default. Throws `InvalidOptionsError` naming the first bad option. */
export function resolveOptions(options: DurableTimeoutsOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionsError(errorMessages.optionsNotObject());
  const { topics } = options;
  if (typeof topics !== 'object' || topics === null || Array.isArray(topics) || Object.keys(topics).length === 0) {
    throw new InvalidOptionsError(errorMessages.noTopics());
  }
  const engineCodec = resolveCodec('codec', options.codec) ?? null;
  const resolvedTopics = new Map<string, ResolvedTopicOptions>();
  for (const [name, topicOptions] of Object.entries<TopicOptions | undefined>(topics)) {
    assertTopicName(name);
    resolvedTopics.set(name, resolveTopic(name, topicOptions, engineCodec));
  }
  const prefix = options.prefix ?? ENGINE_DEFAULTS.prefix;
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new InvalidOptionsError(errorMessages.invalidOption('prefix', prefix, 'use 1 to 64 characters without "{", "}" or whitespace'));
  }
  return {
    prefix,
    topics: resolvedTopics,
    sweepIntervalMs: integerIn('sweepIntervalMs', options.sweepIntervalMs, ENGINE_DEFAULTS.sweepIntervalMs, 100, 3_600_000),
    commandTimeoutMs: integerIn('commandTimeoutMs', options.commandTimeoutMs, ENGINE_DEFAULTS.commandTimeoutMs, 10, 60_000),
    drainMs: resolveDrainMs(options.drainMs, ENGINE_DEFAULTS.drainMs),
    logger: resolveLogger(options.logger),
    store: resolveStore(options.store),
    connection: options.connection,
    durability: checkedDurability(options.durability),
  };
}

/** Validates `durability` now (the store applies it), as `InvalidOptionsError` like every engine option. */
function checkedDurability(durability: DurabilityOptions | undefined): DurabilityOptions | undefined {
  const checked = checkDurability(durability);
  if (!checked.ok) throw new InvalidOptionsError(checked.message);
  return durability;
}

/** A `codec` option: undefined, or an object with `encode` and `decode` methods. */
function resolveCodec(name: string, codec: unknown): PayloadCodec | undefined {
  if (codec === undefined) return undefined;
  const valid =
    typeof codec === 'object' && codec !== null && typeof (codec as PayloadCodec).encode === 'function' && typeof (codec as PayloadCodec).decode === 'function';
  if (!valid) throw new InvalidOptionsError(errorMessages.codecNotObject(name));
  return codec as PayloadCodec;
}

function resolveTopic(topic: string, options: TopicOptions | undefined, engineCodec: PayloadCodec | null): ResolvedTopicOptions {
  const given = options ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`topics.${topic}`, given, 'use an object of topic options (may be empty: {})'));
  }
  rejectUnknown(`topics.${topic}`, given, TOPIC_OPTION_NAMES);
  const name = (option: string) => `topics.${topic}.${option}`;
  const slots = integerIn(name('slots'), given.slots, TOPIC_DEFAULTS.slots, 1, 1024);
  if ((slots & (slots - 1)) !== 0) {
    throw new InvalidOptionsError(errorMessages.invalidOption(name('slots'), slots, 'use a power of two from 1 to 1024 (1, 2, 4, ... 1024)'));
  }
  const backoff = given.backoff ?? {};
  if (typeof backoff !== 'object' || backoff === null || Array.isArray(backoff)) {
    throw new InvalidOptionsError(errorMessages.invalidOption(name('backoff'), backoff, 'use { baseMs?, capMs? }'));
  }
  rejectUnknown(name('backoff'), backoff, BACKOFF_OPTION_NAMES);
  const baseMs = integerIn(name('backoff.baseMs'), backoff.baseMs, TOPIC_DEFAULTS.backoff.baseMs, 0, MAX_DELAY_MS);
  const capMs = integerIn(name('backoff.capMs'), backoff.capMs, Math.max(TOPIC_DEFAULTS.backoff.capMs, baseMs), 0, MAX_DELAY_MS);
  if (capMs < baseMs) {
    throw new InvalidOptionsError(errorMessages.invalidOption(name('backoff.capMs'), capMs, `use at least backoff.baseMs (${baseMs})`));
  }
  const leaseMs = integerIn(name('leaseMs'), given.leaseMs, TOPIC_DEFAULTS.leaseMs, 100, 86_400_000);
  return {
    slots,
    leaseMs,
    maxAttempts: integerIn(name('maxAttempts'), given.maxAttempts, TOPIC_DEFAULTS.maxAttempts, 1, 1_000),
    backoff: { baseMs, capMs },
    batchSize: integerIn(name('batchSize'), given.batchSize, TOPIC_DEFAULTS.batchSize, 1, 1_000),
    concurrency: integerIn(name('concurrency'), given.concurrency, TOPIC_DEFAULTS.concurrency, 1, 100_000),
    maxPayloadBytes: integerIn(name('maxPayloadBytes'), given.maxPayloadBytes, TOPIC_DEFAULTS.maxPayloadBytes, 4, 64 * 1024 * 1024),
    // Ten leases by default: a handler that hangs gives its timeout up instead of renewing forever.
    maxRunMs: integerIn(name('maxRunMs'), given.maxRunMs, 10 * leaseMs, 100, MAX_DELAY_MS),
    codec: given.codec === null ? null : (resolveCodec(name('codec'), given.codec) ?? engineCodec),
    late: resolveLate(name('late'), given.late),
    rateLimit: resolveRateLimit(name('rateLimit'), given.rateLimit),
  };
}

/** The `rateLimit` topic option with its burst filled in, or undefined (no limit). */
function resolveRateLimit(where: string, rate: unknown): Required<RateLimitOptions> | undefined {
  if (rate === undefined) return undefined;
  if (typeof rate !== 'object' || rate === null || Array.isArray(rate)) {
    throw new InvalidOptionsError(errorMessages.invalidOption(where, rate, 'use { perSecond, burst? }'));
  }
  rejectUnknown(where, rate, RATE_LIMIT_OPTION_NAMES);
  const { perSecond, burst } = rate as RateLimitOptions;
  if (typeof perSecond !== 'number' || !Number.isFinite(perSecond) || perSecond < 0.001 || perSecond > 1_000_000) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`${where}.perSecond`, perSecond, 'use a number from 0.001 to 1000000'));
  }
  return { perSecond, burst: integerIn(`${where}.burst`, burst, Math.ceil(perSecond), 1, 1_000_000_000) };
}

/** The `late` topic option: `{ afterMs, action }` with both set, or undefined (no policy). */
function resolveLate(where: string, late: unknown): LatePolicy | undefined {
  if (late === undefined) return undefined;
  if (typeof late !== 'object' || late === null || Array.isArray(late)) {
    throw new InvalidOptionsError(errorMessages.invalidOption(where, late, "use { afterMs, action: 'fire' | 'dead-letter' | 'skip' }"));
  }
  rejectUnknown(where, late, LATE_OPTION_NAMES);
  const given = late as Partial<LatePolicy>;
  if (given.afterMs === undefined) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`${where}.afterMs`, undefined, `use a whole number of ms from 0 to ${MAX_LATE_AFTER_MS}`));
  }
  const afterMs = integerIn(`${where}.afterMs`, given.afterMs, 0, 0, MAX_LATE_AFTER_MS);
  if (!LATE_ACTIONS.includes(given.action as LateAction)) {
    throw new InvalidOptionsError(errorMessages.invalidOption(`${where}.action`, given.action, "use 'fire', 'dead-letter' or 'skip'"));
  }
  return { afterMs, action: given.action as LateAction };
}

/**
 * The one rule for `drainMs`, in the options and in `stop()`: a number of milliseconds from 0 to
 * `MAX_DRAIN_MS`, rounded to a whole one; `fallback` when undefined.
 */
export function resolveDrainMs(value: unknown, fallback: number): number {
  return integerIn('drainMs', typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : value, fallback, 0, MAX_DRAIN_MS);
}

/** The value, or the default when undefined; an integer within [min, max] or `InvalidOptionsError`. */
export function integerIn(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionsError(errorMessages.invalidOption(name, value, `use a whole number from ${min} to ${max}`));
  }
  return value;
}

function rejectUnknown(where: string, given: object, known: readonly string[]): void {
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new InvalidOptionsError(errorMessages.unknownOption(`${where}.${key}`, known));
  }
}

function resolveLogger(logger: TimeoutLogger | null | undefined): TimeoutLogger | null {
  if (logger === null) return null;
  if (logger === undefined) return consoleLogger;
  const valid =
    typeof logger === 'object' && typeof logger.log === 'function' && typeof logger.warn === 'function' && typeof logger.error === 'function';
  if (!valid) throw new InvalidOptionsError(errorMessages.invalidOption('logger', logger, 'use an object with log, warn and error methods, or null'));
  return logger;
}

function resolveStore(store: GivenStore | undefined): GivenStore | undefined {
  if (store === undefined) return undefined;
  const valid =
    typeof store === 'object' &&
    store !== null &&
    STORE_METHODS.every((method) => typeof store[method] === 'function') &&
    Object.entries(STORE_ROLES).every(([role, methods]) => {
      const calls = (store as unknown as Record<string, Record<string, unknown> | undefined>)[role];
      return typeof calls === 'object' && calls !== null && methods.every((method) => typeof calls[method] === 'function');
    });
  if (!valid) throw new InvalidOptionsError(errorMessages.invalidOption('store', store, 'use an implementation of TimeoutStore'));
  return store;
}

/** The default logger: `console`, without debug, every line tagged with the library name. */
const consoleLogger: TimeoutLogger = {
  log: (message, context) => console.log(`[durable-timeout] ${message}`, ...(context ? [context] : [])),
  warn: (message, context) => console.warn(`[durable-timeout] ${message}`, ...(context ? [context] : [])),
  error: (message, context) => console.error(`[durable-timeout] ${message}`, ...(context ? [context] : [])),
};
