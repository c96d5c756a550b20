import type { CancelResult, LateAction, LatePolicy, ScheduleIfExists, ScheduleOutcome, TimeoutState, TimeoutStore } from './store/timeout-store.js';
import type { TopicName } from './typed-topics.js';
import type { ConnectionOptions } from './store/connection-options.js';

export type { CancelResult, ConnectionOptions, LateAction, LatePolicy, ScheduleIfExists, ScheduleOutcome, TimeoutState };

/** Any JSON value: what a timeout's payload may hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Retry backoff of a topic: exponential with equal jitter, a uniform pick in `[d/2, d]` where
 * `d = min(capMs, baseMs * 2^(attempt-1))` (half the delay is kept, so retries never bunch up at zero).
 */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 1,000 ms. */
  baseMs?: number | undefined;
  /** Largest delay between two attempts. Default 300,000 ms (5 min). */
  capMs?: number | undefined;
}

/**
 * Turns a payload's bytes into the bytes kept in the store and back: encryption (see
 * `aesGcmCodec`), compression, or both. The engine hands `encode` the UTF-8 bytes of the
 * payload's JSON text when a timeout is scheduled, and `decode` what `encode` returned when it is
 * claimed or read; it stores the result as base64 text behind a marker, so stored payloads written
 * before a codec was configured still read. Both are synchronous. `decode` throws when it cannot
 * give the bytes back (wrong key, altered bytes): the delivery is then dead-lettered with reason
 * `corrupt`, and `get` throws `PayloadDecodeError`. The message of what it throws is kept with the
 * dead letter: it must name the problem, never the payload. See docs/ENGINE.md, "Encoded payloads".
 */
export interface PayloadCodec {
  /** The stored form of a payload's bytes (the UTF-8 bytes of its JSON text). */
  encode(bytes: Uint8Array): Uint8Array;
  /** The payload's bytes back from what `encode` returned; throws when that cannot be done. */
  decode(bytes: Uint8Array): Uint8Array;
}

/** A topic's settings after defaults are applied and validated (see `DurableTimeouts.settings`). */
export type ResolvedTopicOptions = Required<Omit<TopicOptions, 'backoff' | 'codec' | 'late' | 'rateLimit'>> & {
  backoff: Required<BackoffOptions>;
  /** The codec of the topic's payloads (the topic's own, else the engine's), or null when they are stored as plain JSON text. */
  codec: PayloadCodec | null;
  /** The late policy, or undefined when there is none. */
  late: LatePolicy | undefined;
  /** The rate limit with its burst filled in, or undefined when there is none. */
  rateLimit: Required<RateLimitOptions> | undefined;
};

/** A topic's rate limit (the topic option `rateLimit`). */
export interface RateLimitOptions {
  /** Most handler runs started per second, over every instance. From 0.001 to 1,000,000. */
  perSecond: number;
  /** Most started at once after an idle spell (the bucket's size), a whole number from 1. Default: `perSecond` rounded up. */
  burst?: number | undefined;
}

/** Settings of one topic (a kind of timeout, e.g. `payment`). Every field has a default. */
export interface TopicOptions {
  /** Number of slots the topic is sharded into; a power of two from 1 to 1024. Default 16. */
  slots?: number | undefined;
  /** How long a claimed timeout stays leased to one worker before another may fire it. Default 30,000 ms. */
  leaseMs?: number | undefined;
  /** Attempts before a timeout is dead-lettered (the first run counts). Default 16. */
  maxAttempts?: number | undefined;
  /** Retry backoff. */
  backoff?: BackoffOptions | undefined;
  /** Most timeouts claimed from one slot by one claim. Default 100. */
  batchSize?: number | undefined;
  /** Most handlers of this topic running at once in this instance. Default 256. */
  concurrency?: number | undefined;
  /**
   * Largest payload accepted by `schedule`, in bytes of what is stored: its JSON text, or with a
   * `codec` its encoded text. Default 65,536 (64 KiB).
   */
  maxPayloadBytes?: number | undefined;
  /**
   * How this topic's payloads are encoded in the store; overrides the engine's `codec`, and `null`
   * stores them as plain JSON text even when the engine has one. Default: the engine's.
   */
  codec?: PayloadCodec | null | undefined;
  /**
   * Longest a handler may run (its lease is renewed meanwhile). Past it the delivery counts as
   * failed: `event.signal` is aborted with `HandlerTimeoutError`, the attempt is retried with
   * backoff (or dead-lettered on the last), and whatever the handler does next is ignored.
   * Checked every `leaseMs / 6`. Default 10 x `leaseMs` (300,000 ms with the default lease).
   */
  maxRunMs?: number | undefined;
  /**
   * What to do with a timeout claimed more than `afterMs` past its due time (Redis clock), e.g.
   * after an outage: `fire` it anyway, `dead-letter` it (reason `late`, replayable) or `skip` it
   * (dropped, `skipped` event). Decided atomically with the claim: no handler runs for a timeout
   * the policy refused. `afterMs` from 0 to 31,536,000,000 (a year). Default: none (every timeout
   * fires). See docs/FLOW-CONTROL.md.
   */
  late?: LatePolicy | undefined;
  /**
   * Most timeouts of this topic fired per second over every instance: a token bucket kept in Redis
   * and taken inside the claim (Redis clock), split evenly over the topic's slots (each slot gets
   * `perSecond / slots` and `burst / slots`, at least 1). What waits stays pending, in due order.
   * Default: none. See docs/FLOW-CONTROL.md.
   */
  rateLimit?: RateLimitOptions | undefined;
}

/** Minimal logger the engine writes to. Messages name topic, id and attempt, never a payload. */
export interface TimeoutLogger {
  /** Detail for tracing a problem; optional. */
  debug?(message: string, context?: Record<string, unknown>): void;
  /** Normal operation worth seeing: leases handed back at stop, the store reachable again. */
  log(message: string, context?: Record<string, unknown>): void;
  /**
   * A problem the engine gets past by itself: an attempt that will be retried, a lost lease, Redis
   * failing over, a risky Redis setting.
   */
  warn(message: string, context?: Record<string, unknown>): void;
  /**
   * A problem that needs attention: a timeout dead-lettered, the store failing, an event listener
   * that threw.
   */
  error(message: string, context?: Record<string, unknown>): void;
}

/**
 * Options of `new DurableTimeouts(...)`. `TTopics` is the engine's declaration of topics (see
 * `TopicsDeclaration`): `topics` must then hold the settings of every declared topic.
 */
export interface DurableTimeoutsOptions<TTopics = any> {
  /** How to reach Redis. Ignored when `store` is given. */
  connection?: ConnectionOptions | undefined;
  /** Prefix of every Redis key the engine writes. Default `dt`. */
  prefix?: string | undefined;
  /** The topics this instance may schedule and handle, with their settings. */
  // The second half lets `new DurableTimeouts({ topics: { payment: {} } })` infer the names.
  topics: Record<TopicName<TTopics>, TopicOptions> & Record<TTopics & string, TopicOptions>;
  /**
   * Backstop sweep: every slot is claimed at least this often even when no notification arrived,
   * so a lost wake-up delays a timeout by at most this much. Default 60,000 ms.
   */
  sweepIntervalMs?: number | undefined;
  /**
   * How long `schedule`, `cancel` and `get` wait for Redis before failing with `RedisUnavailableError`.
   * Default 1,000 ms. Calls made while a connection the engine opened connects for the first time
   * wait for it up to 10 s instead (and fail at once when the attempt fails).
   */
  commandTimeoutMs?: number | undefined;
  /**
   * Replicated durability, opt-in: `schedule` and `cancel` resolve only once Redis' `WAIT`
   * confirms the write reached `replicas` replicas, so a failover cannot lose an acknowledged
   * call. Works on one server, Sentinel and Cluster connections (on a Cluster the WAIT goes to
   * the master that took the write). Costs one shared WAIT per connection and group of concurrent calls. Default off. See docs/RELIABILITY.md.
   */
  durability?: DurabilityOptions | undefined;
  /**
   * How long `stop()` waits for running handlers before releasing their timeouts to other
   * instances, unless `stop({ drainMs })` says otherwise. From 0 to 3,600,000; default 10,000 ms.
   */
  drainMs?: number | undefined;
  /** Storage to use instead of Redis, e.g. `new MemoryTimeoutStore(clock)` in unit tests. */
  store?: TimeoutStore | undefined;
  /** Where the engine logs. Default: `console`, without debug. Pass `null` to silence. */
  logger?: TimeoutLogger | null | undefined;
  /**
   * How payloads are encoded in the store (e.g. `aesGcmCodec(...)` to encrypt them), for every
   * topic without its own `codec`. Default: none, payloads are stored as plain JSON text.
   */
  codec?: PayloadCodec | undefined;
}

/** When a timeout should fire: after `delayMs` (Redis server clock) or at an absolute time. Exactly one. */
export type ScheduleTiming = { delayMs: number; at?: never } | { at: Date | number; delayMs?: never };

/** Arguments of `schedule`. */
export type ScheduleOptions<TPayload = JsonValue> = ScheduleTiming & {
  /** Data handed to the handler; must be JSON-serialisable and within the topic's `maxPayloadBytes`. */
  payload?: TPayload;
  /** What to do when the id already exists (default `replace`); see `ScheduleIfExists`. */
  ifExists?: ScheduleIfExists | undefined;
};

/** Result of `schedule`. */
export interface ScheduleResult {
  topic: string;
  id: string;
  /** Due time in effect after the call (the kept one for `kept` / `kept_firing`), ms since the epoch on the Redis server clock. */
  dueAt: number;
  outcome: ScheduleOutcome;
}

/** One timeout of `scheduleMany`: its id and the options `schedule` takes. */
export type ScheduleManyItem<TPayload = JsonValue> = ScheduleOptions<TPayload> & {
  /** The timeout's id, as for `schedule`. */
  id: string;
};

/**
 * What `scheduleMany` did with one item: scheduled (`ok: true`, with what `schedule` returns), or
 * not (`ok: false`): the item was refused by validation (nothing of it stored), or the call of its
 * slot failed (`RedisUnavailableError`: it may or may not be stored, as for `schedule`).
 */
export type ScheduleManyResult = ({ ok: true } & ScheduleResult) | { ok: false; topic: string; id: string; error: Error };

/** What `cancelMany` did with one id: the `cancel` result (`ok: true`), or the error that refused the id or failed its slot's call. */
export type CancelManyResult = { ok: true; topic: string; id: string; result: CancelResult } | { ok: false; topic: string; id: string; error: Error };

/** What `get` returns for a stored timeout. */
export interface TimeoutInfo<TPayload = JsonValue> {
  topic: string;
  id: string;
  state: TimeoutState;
  /** Due time (ms since the epoch, Redis server clock). For a dead timeout: when it died. */
  dueAt: number;
  /** When the current schedule was made (ms since the epoch, Redis server clock). */
  scheduledAt: number;
  /** Attempts made so far (0 before the first firing). */
  attempt: number;
  /** For `firing`: when the current lease expires. */
  leaseExpiresAt?: number;
  /** For a retried or dead timeout: the last handler error message. */
  lastError?: string;
  payload: TPayload;
  /**
   * Set, in `listPending` only, when the stored payload could not be decoded (see `PayloadCodec`):
   * why, e.g. an unknown key id. `payload` is then null. (`get` throws `PayloadDecodeError` instead.)
   */
  payloadError?: string;
}

/** What a handler receives when a timeout fires. */
export interface TimeoutEvent<TPayload = JsonValue> {
  topic: string;
  id: string;
  payload: TPayload;
  /** Due time, ms since the epoch (Redis server clock). */
  dueAt: number;
  /** When this schedule was made, ms since the epoch (Redis server clock). */
  scheduledAt: number;
  /** 1 on the first delivery, then 2, 3, ... */
  attempt: number;
  /** How late this delivery was claimed: claim time minus `dueAt`, Redis clock, ms (never negative). */
  lateByMs: number;
  /**
   * Grows with every claim of this id (never repeats, never goes back). Store it with the effect
   * and refuse a write carrying a smaller token to make a handler safe against a stale worker.
   */
  fencingToken: number;
  /**
   * Aborted when this instance gives the timeout up: shutdown past `drainMs` (`TimeoutsStoppedError`),
   * a lease renewal refused because a newer delivery or schedule owns the timeout, or a lease that
   * could not be renewed before it ended (`LeaseLostError`), the topic's `maxRunMs` passed
   * (`HandlerTimeoutError`), or `cancel` / `cancelMany` (on any instance) removed the timeout while
   * the handler ran (`TimeoutCancelledError`: nothing the handler does next is recorded; check
   * `signal.aborted` before a side effect to skip it). The reason is `signal.reason`.
   */
  signal: AbortSignal;
  /**
   * Makes the lease last at least `ms` from now (on the Redis clock; never shortens it), for a
   * handler about to do something long that may keep the event loop from renewing the lease on
   * its own (renewal is automatic while the handler runs). Resolves with the new lease expiry (ms
   * since the epoch, Redis clock); rejects with `LeaseLostError` (and aborts `signal`) when a newer
   * delivery owns the timeout, with `TimeoutCancelledError` once it was cancelled, with
   * `InvalidOptionsError` for an `ms` outside 1 to 86,400,000.
   */
  extendLease(ms: number): Promise<number>;
}

/** A timeout handler. Returning (or resolving) acknowledges; throwing (or rejecting) retries. */
export type TimeoutHandler<TPayload = JsonValue> = (event: TimeoutEvent<TPayload>) => unknown | Promise<unknown>;

/** Options of `resume`. */
export interface ResumeOptions {
  /**
   * `true`: every pending due time of the topic moves later by the length of the pause, as if the
   * clock had stopped while it lasted. `false` (default): what fell due during the pause fires now.
   */
  shift?: boolean | undefined;
}

/** Whether a topic is paused (`pause`, `pauseState`). */
export interface TopicPauseState {
  topic: string;
  paused: boolean;
  /** When the topic was paused (ms since the epoch, Redis clock); null when it is not paused. */
  pausedAt: number | null;
}

/** What `resume` did. */
export interface TopicResumeResult {
  topic: string;
  /** False when the topic was not paused (nothing changed). */
  resumed: boolean;
  /** How long the pause lasted, ms (Redis clock); 0 when it was not paused. */
  pausedMs: number;
  /** How many pending due times moved later (`shift: true` only). */
  shifted: number;
}

/** Counts of a topic, over all its slots. */
export interface TopicStats {
  topic: string;
  pending: number;
  firing: number;
  dead: number;
  /** Age (ms, Redis server clock) of the oldest pending timeout whose due time has passed; 0 when none. */
  oldestOverdueMs: number;
  /** Whether the topic is paused (any of its slots; `pause`). `pauseState` says since when. */
  paused: boolean;
}

/** One dead-lettered timeout. */
export interface DeadLetter<TPayload = JsonValue> {
  topic: string;
  id: string;
  payload: TPayload;
  attempts: number;
  lastError: string;
  /** When it was dead-lettered (ms since the epoch, Redis server clock). */
  deadAt: number;
  scheduledAt: number;
  /**
   * Set when the stored payload could not be decoded (see `PayloadCodec`): why, e.g. an unknown
   * key id. `payload` is then null; replay the letter once the codec can decode it.
   */
  payloadError?: string;
}

/** Options of `stop`. */
export interface StopOptions {
  /** How long to wait for running handlers before releasing their timeouts to other instances. Default: the instance's `drainMs` (10,000 ms). */
  drainMs?: number | undefined;
}

/**
 * What a `stop()` did (the `stopped` event), for a log line or a metric: the engine logs nothing
 * of it by itself. The Nest module logs it through the Nest logger.
 */
export interface DrainSummary {
  /** The drain budget of this stop, ms. */
  drainMs: number;
  /** Handlers running in this instance when the stop began. */
  handlersRunning: number;
  /** Of those, the handlers that finished within `drainMs`. */
  handlersFinished: number;
  /** Handlers still running after `drainMs`: their `signal` was aborted and their timeouts handed back. */
  handlersAborted: number;
  /**
   * Timeouts handed back as due now (no attempt spent) for another instance to fire: those of the
   * aborted handlers and of claims that came back after the stop began (the `released` events).
   */
  handedBack: number;
  /** How long the stop took, ms, closing the connections included. */
  tookMs: number;
}

/** The options an instance runs with, every default filled in (`timeouts.settings`). */
export interface DurableTimeoutsSettings {
  prefix: string;
  topics: Readonly<Record<string, Readonly<ResolvedTopicOptions>>>;
  sweepIntervalMs: number;
  commandTimeoutMs: number;
  drainMs: number;
}

/** Liveness figures of one instance, for health checks. */
export interface HealthSnapshot {
  /** Round trip of a PING, or null when Redis did not answer within `commandTimeoutMs`. */
  redisLatencyMs: number | null;
  /** Whether pollers run in this instance (after `start`, before `stop`). */
  running: boolean;
  /** Time since the slot poller that is most behind last finished a claim cycle; null when not running. */
  maxPollerIdleMs: number | null;
  /** Handlers running now. */
  inFlight: number;
  /** Topics handled here whose last claim found them paused (`pause`), in handler order. */
  pausedTopics: string[];
}

/**
 * A hook around scheduling and handling, for tracing (`registerTimeoutTracing` from
 * `@durable-timeout/core/otel` is one). Register with `timeouts.intercept(interceptor)`.
 */
export interface TimeoutInterceptor {
  /**
   * Called by `schedule` once the input is valid: short text to keep with the timeout (at most 512
   * characters without U+0001, e.g. a W3C `traceparent`; other text is dropped), or undefined. It
   * stays with the timeout through retries, dead letters and replays, and never reaches `payload`.
   */
  scheduling?(topic: string, id: string): string | undefined;
  /**
   * Runs one delivery: call `run()` exactly once and return what it returns (a promise for an
   * async handler). `carried` is what `scheduling` returned when the timeout was scheduled.
   */
  handling?(event: TimeoutEvent<unknown>, carried: string | undefined, run: () => unknown): unknown;
}

/** Why an attempt failed: the handler threw, or the lease expired before an ack. */
export type RetryReason = 'handler' | 'lease_expired';

/**
 * Why a timeout was dead-lettered: its last attempt failed, its stored data was unreadable or gone,
 * or the topic's `late` policy refused it (`late`).
 */
export type DeadReason = RetryReason | 'corrupt' | 'missing' | 'late';

/** Events the engine emits, with their data. Listen with `timeouts.on(name, listener)`. */
export interface DurableTimeoutsEvents {
  scheduled: { topic: string; id: string; dueAt: number; outcome: ScheduleOutcome };
  /**
   * `cancel` or `cancelMany` of this instance removed a timeout: a pending one (`firing: false`), or
   * one a handler was running (`firing: true`: the result `firing`; its delivery's signal is aborted
   * and it is neither acked nor retried).
   */
  cancelled: { topic: string; id: string; firing: boolean };
  /**
   * A handler returned and its ack was accepted. `lateByMs`: claim time minus due time (Redis
   * clock); `latenessMs`: handler start minus due time (this instance's view of the Redis clock).
   */
  fired: { topic: string; id: string; attempt: number; dueAt: number; lateByMs: number; latenessMs: number; durationMs: number };
  /**
   * An attempt failed and the timeout will run again at `retryAt`: its handler threw (`handler`),
   * or its lease expired before an ack (`lease_expired`: the worker died, froze or lost Redis for
   * longer than `leaseMs`; a lease is renewed from the claim until the handler's ack is recorded). `latenessMs` and `durationMs` as for `fired`, when a handler of this instance ran.
   */
  retried: { topic: string; id: string; attempt: number; retryAt: number; error: Error; reason: RetryReason; latenessMs?: number; durationMs?: number };
  /**
   * The timeout moved to the dead letters: its last attempt failed (`handler`, `lease_expired`),
   * its stored data could not be read (`corrupt`) or was gone (`missing`), or the topic's `late`
   * policy refused it (`late`, with `lateByMs`). `latenessMs` and `durationMs` as for `retried`.
   */
  dead: { topic: string; id: string; attempts: number; error: Error; reason: DeadReason; lateByMs?: number; latenessMs?: number; durationMs?: number };
  /**
   * The topic's `late` policy (`action: 'skip'`) dropped a timeout claimed `lateByMs` past its due
   * time `dueAt`: no handler ran and it is gone, as if cancelled.
   */
  skipped: { topic: string; id: string; attempts: number; dueAt: number; lateByMs: number };
  /** The ack or fail was refused: the lease had expired and the timeout was claimed again or replaced. */
  stale: { topic: string; id: string; attempt: number; fencingToken: number };
  /** Timeouts handed back as due now on shutdown (no attempt spent). */
  released: { topic: string; count: number };
  /** `stop()` finished: what its drain did and how long it took (emitted once, before `stop()` resolves). */
  stopped: DrainSummary;
  /** Something failed outside a handler (Redis down, a script error); the engine keeps going. */
  error: { error: Error; topic?: string; operation: string };
  /**
   * A store call met a Redis failover (a `RedisUnavailableError` with `failover` set: MOVED,
   * CLUSTERDOWN, READONLY... or a Cluster / Sentinel node lost) and will be retried; the engine keeps
   * going. A failover that lasts longer than 30 s is reported as `error` from then on.
   */
  warning: { error: Error; topic?: string; operation: string };
}

/** Counts of one slot of a topic (`slotStats`). */
export interface TopicSlotStats {
  slot: number;
  pending: number;
  firing: number;
  dead: number;
  /** Age (ms, Redis server clock) of the slot's oldest overdue pending timeout; 0 when none. */
  oldestOverdueMs: number;
  /** Whether the slot is paused (`pause`). */
  paused: boolean;
}

/**
 * Replicated durability, opt-in: `schedule` and `cancel` resolve only once Redis' `WAIT` says the
 * write reached `replicas` replicas (on a Redis Cluster, replicas of the master that took it), so
 * a failover to one of them cannot lose what was acknowledged. Claims, acks and fails do not wait (see docs/RELIABILITY.md#failover).
 */
export interface DurabilityOptions {
  /** Replicas that must have the write before the call resolves (1 or more). */
  replicas: number;
  /** Longest wait for the replicas, in ms (`WAIT`'s timeout). Default 500. */
  timeoutMs?: number | undefined;
  /**
   * When the replicas do not confirm in time (none connected, or lagging): `refuse` rejects the
   * call with `DurabilityUnconfirmedError` (the write stays on the primary; retrying is safe),
   * `warn` resolves it anyway and logs a warning (at most one every 10 s). Default `refuse`.
   */
  onUnavailable?: 'refuse' | 'warn' | undefined;
  /**
   * Also wait until the replicas wrote the write to their append-only file (`WAITAOF`, Redis
   * 7.2+), so that it survives a replica restarting too, not only a failover to it. A replica
   * confirms only after its next fsync (up to 1 s with `appendfsync everysec`): raise `timeoutMs`
   * to match, and every replica needs `appendonly yes`. On a server without WAITAOF the store
   * falls back to `WAIT` and logs one warning. Default false (`WAIT`: the replicas' memory).
   */
  aof?: boolean | undefined;
}
