import type { SoakTimeout } from '../soak-plan.js';
import type { DuePlan } from '../workloads.js';
import type { SystemKey } from './names.js';

/** Where the systems under test find Redis: one server, or the startup nodes of a cluster. */
export type RedisTarget =
  | { kind: 'single'; host: string; port: number }
  | { kind: 'cluster'; nodes: { host: string; port: number }[] };

/** Settings a worker process needs besides the target. */
export interface WorkerSettings {
  /** Key prefix (or BullMQ queue prefix) of this run. */
  prefix: string;
  /** Handlers allowed to run at once, where the system has such a knob (BullMQ's concurrency). */
  concurrency: number;
}

/** Called by a worker for every handler start, with the id and the due time the system reports (or null to use the plan's). */
export type FireSink = (id: string, reportedDueAt: number | null) => void;

/** The scheduling side of a system, living in the benchmark's main process. */
export interface Scheduler {
  /** Schedules every timeout of the plan (one call per timeout, many in flight) and resolves when all are stored. */
  scheduleAll(plan: DuePlan): Promise<void>;
  /** Closes what the scheduler opened. */
  close(): Promise<void>;
}

/** The scheduling side of a soak (`--soak`), in the benchmark's main process: each call resolves when Redis has them all. */
export interface SoakClient {
  /** Schedules new timeouts. */
  schedule(timeouts: readonly SoakTimeout[]): Promise<void>;
  /** Cancels pending timeouts. */
  cancel(ids: readonly string[]): Promise<void>;
  /** Moves pending timeouts to a new due time (same id). */
  replace(timeouts: readonly SoakTimeout[]): Promise<void>;
  close(): Promise<void>;
}

/** The firing side of a system, living in a worker process of its own. */
export interface Worker {
  /** For systems without storage the worker schedules itself: same contract as `Scheduler.scheduleAll`. */
  scheduleLocal?(plan: DuePlan): Promise<void>;
  /** Stops firing and closes what the worker opened. */
  stop(): Promise<void>;
}

/** One system under test. */
export interface BenchSystem {
  key: SystemKey;
  /** Whether the system keeps its timeouts in Redis (memory and command figures make sense). */
  usesRedis: boolean;
  /** Opens the scheduler; `local` forwards to the worker process for systems that schedule there. */
  openScheduler(target: RedisTarget, prefix: string, local: (plan: DuePlan) => Promise<void>): Promise<Scheduler>;
  /** Opens the scheduling side of a soak; only the systems the soak compares have one. */
  openSoakClient?(target: RedisTarget, prefix: string): Promise<SoakClient>;
  /** Opens the worker and starts firing into `sink`. */
  openWorker(target: RedisTarget, settings: WorkerSettings, sink: FireSink): Promise<Worker>;
}

/** Runs `task(i)` for i in [0, count) with at most `inFlight` running at once. */
export async function inPool(count: number, inFlight: number, task: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}
