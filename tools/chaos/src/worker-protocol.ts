import type { DurabilityOptions, JsonValue, RecurringScheduleOptions, TopicOptions } from '@durable-timeout/core';

/** How a worker reaches the Redis under test. */
export type WorkerConnection =
  | string
  | { host: string; port: number; username?: string; password?: string; tlsCaFile?: string }
  | { sentinels: { host: string; port: number }[]; name: string }
  | { cluster: { host: string; port: number }[] };

/** Everything a worker process needs, passed in the environment variable `CHAOS_WORKER_CONFIG` (JSON). */
export interface WorkerConfig {
  label: string;
  connection: WorkerConnection;
  /** The engine's `durability` option (schedules confirmed by replicas). */
  durability?: DurabilityOptions;
  prefix: string;
  topic: string;
  topicOptions: TopicOptions;
  sweepIntervalMs: number;
  /** How long `stop` waits for running handlers on SIGTERM. */
  drainMs: number;
  effectsUrl: string;
  effectsPrefix: string;
  /** Ordinary handler work: a random duration in this range (ms). */
  workMs: [number, number];
  /** Added to this process' `Date.now()` (clock skew of an application server). */
  clockSkewMs?: number;
  /** Whether to run handlers (false: a worker that only schedules). */
  handle?: boolean;
  /** Send a `began` message to the harness for every handler run. */
  reportRuns?: boolean;
  /**
   * Recurring schedules this worker upserts at boot and handles (the topic `schedules`, with
   * `topicOptions`): each occurrence's handler works `workMs` and records its guarded effect under
   * the id `<name>@<occurrenceAt>`, with its `missed` count.
   */
  schedules?: Record<string, RecurringScheduleOptions>;
}

/**
 * What a scheduled payload may ask of the handler (chaos payloads only; any other payload runs the
 * ordinary handler):
 * - `fail-once`: throw on the first run (no failure recorded for the id yet);
 * - `fail-until-healed`: throw until the harness heals the handlers;
 * - `exit-once`: on attempt 1 the process exits mid-handler;
 * - `exit-always`: every attempt exits the process mid-handler (a crash-looping poison timeout);
 * - `hang-once`: on attempt 1 the handler takes `sleepMs` and ignores the abort signal.
 */
export interface ChaosPayload {
  chaos: 'fail-once' | 'fail-until-healed' | 'exit-once' | 'exit-always' | 'hang-once';
  sleepMs?: number;
}

/** One timeout to schedule. */
export interface ScheduleItem {
  id: string;
  delayMs?: number;
  at?: number;
  payload?: JsonValue;
}

/** The effect id of one occurrence of a recurring schedule: its name and occurrence time (duplicates are counted by it). */
export function occurrenceEffectId(name: string, occurrenceAt: number): string {
  return `${name}@${occurrenceAt}`;
}

/** Result of one scheduled item: the due time, or the error text. */
export type ScheduleItemResult = { id: string; dueAt: number } | { id: string; error: string };

/** Harness to worker. */
export type ToWorker = { type: 'schedule'; requestId: number; items: ScheduleItem[] } | { type: 'counters'; requestId: number };

/** Counters a worker keeps of its engine's events. */
export interface WorkerCounters {
  fired: number;
  retried: number;
  dead: number;
  stale: number;
  released: number;
  errors: number;
  inFlight: number;
  /** Runs whose ack the library has not accepted yet: running, or finished with the ack still on its way (a SIGKILL now repeats them). */
  unacked: number;
  /** Object.prototype gained an own property (prototype pollution). */
  prototypePolluted: boolean;
  /** Handler signals aborted with `LeaseLostError`: renewal refused as stale / lease ended unrenewed. */
  leaseLostStale: number;
  leaseLostUnrenewed: number;
  /** Handler signals aborted with any other reason (a wrong error type while the lease was at stake). */
  abortedOther: number;
  /** Longest the worker's event loop was held up (ms, sampled every 20 ms): how long its timers, lease renewals included, could not run. */
  maxLoopDelayMs: number;
}

/** Worker to harness. */
export type FromWorker =
  /** `nextAt`: the next occurrence of each schedule the worker upserted at boot, by name. */
  | { type: 'ready'; nextAt?: Record<string, number> }
  | { type: 'scheduled'; requestId: number; results: ScheduleItemResult[] }
  | { type: 'counters'; requestId: number; counters: WorkerCounters }
  | { type: 'began'; id: string; attempt: number; fencingToken: number }
  | { type: 'stopped'; shutdownMs: number; counters: WorkerCounters };
