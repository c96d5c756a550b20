import { randomBytes } from 'node:crypto';
import { DurableTimeouts, type TopicOptions } from '@durable-timeout/core';
import { RedisServer, type RedisServerOptions } from '@durable-timeout/redis-testing';
import type { Redis } from 'ioredis';
import { EffectsReader } from './effects-store.js';
import { judge, tally, type Check, type Figures, type Targets } from './tally.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';
import type { ScheduleItem, WorkerConfig, WorkerConnection } from '../worker-protocol.js';

/** What every scenario gets from the runner. */
export interface RunContext {
  /** Brief runs (the `npm test` step) instead of the full ones. */
  quick: boolean;
  /** The separate Redis the handlers record their effects in. */
  effectsUrl: string;
  effectsClient: Redis;
  /** Prints a progress line. */
  say(line: string): void;
}

/** The outcome of one scenario, as printed and written to the JSON report. */
export interface ScenarioResult {
  name: string;
  scheduled: number;
  lost: number;
  duplicateEffects: number;
  duplicateDeliveries: number;
  maxLatenessMs: number;
  boundMs: number | null;
  pass: boolean;
  /** What failed, one line each (empty when it passed). */
  failures: string[];
  /** Other figures the scenario measured (shutdown times, SLOWLOG, AOF loss...). */
  notes: string[];
  /** Set when the scenario could not run on this machine (why): neither a pass nor, by itself, a failure. */
  notRun?: string;
}

/**
 * The result of a run that counts no timeouts of its own (a scenario that crashed, or a check such
 * as the store model): every count 0, passed when nothing failed.
 */
export function uncountedResult(name: string, failures: string[], notes: string[] = []): ScenarioResult {
  return { name, scheduled: 0, lost: 0, duplicateEffects: 0, duplicateDeliveries: 0, maxLatenessMs: 0, boundMs: null, pass: failures.length === 0, failures, notes };
}

/** The rounded mean of `values` (0 for none), for the notes of a scenario. */
export function mean(values: readonly number[]): number {
  return values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : 0;
}

/** A scenario of the suite. */
export interface Scenario {
  name: string;
  /** Left out of `--quick` runs unless named with `--only` (a measurement too long for the test run). */
  fullOnly?: boolean;
  run(context: RunContext): Promise<ScenarioResult>;
}

/** Topic settings shared by the scenarios unless one overrides them: short leases, so faults show within seconds. */
export const CHAOS_TOPIC: TopicOptions = {
  slots: 8,
  leaseMs: 3_000,
  batchSize: 100,
  concurrency: 64,
  maxAttempts: 16,
  backoff: { baseMs: 200, capMs: 1_000 },
};

/** Backstop sweep of every engine in the suite (ms). */
export const SWEEP_MS = 2_000;

/** Options of a rig. */
export interface RigOptions {
  /** A server to use (the rig does not stop it), or options to start one. */
  redis?: RedisServer | RedisServerOptions;
  topicOptions?: TopicOptions;
  /** How workers connect (default: the server's URL). */
  workerConnection?: WorkerConnection;
  /** How the harness' own engine connects (default: the server's URL). */
  harnessConnection?: ConstructorParameters<typeof DurableTimeouts>[0]['connection'];
  workMs?: [number, number];
  drainMs?: number;
  pool?: WorkerPoolOptions;
  worker?: Partial<WorkerConfig>;
}

/**
 * Everything one scenario runs on: a Redis under test, a unique key prefix, the harness' own engine
 * (it schedules and reads, it never handles), worker processes, and the effects records. Tracks the
 * acknowledged schedules and turns them into figures at the end.
 */
export class Rig {
  readonly topic = 'chaos';
  readonly prefix: string;
  readonly effectsPrefix: string;
  readonly engine: DurableTimeouts;
  readonly pool: WorkerPool;
  readonly reader: EffectsReader;
  /** Acknowledged schedules: id -> due time (Redis clock). */
  readonly expected = new Map<string, number>();
  /** Schedules that were rejected: id -> error text. */
  readonly rejected = new Map<string, string>();
  /** Lines the harness' engine logged. */
  readonly logLines: string[] = [];
  readonly topicOptions: TopicOptions;
  private readonly ownsRedis: boolean;

  private constructor(
    readonly name: string,
    readonly context: RunContext,
    readonly redis: RedisServer,
    options: RigOptions,
    ownsRedis: boolean,
  ) {
    const tag = randomBytes(3).toString('hex');
    this.prefix = `chaos-${name}-${tag}`;
    this.effectsPrefix = `fx-${name}-${tag}`;
    this.ownsRedis = ownsRedis;
    this.topicOptions = { ...CHAOS_TOPIC, ...options.topicOptions };
    const collect = (level: string) => (message: string, context?: Record<string, unknown>) => {
      this.logLines.push(`${level} ${message}${context ? ` ${safeJson(context)}` : ''}`);
    };
    this.engine = new DurableTimeouts({
      connection: options.harnessConnection ?? redis.url,
      prefix: this.prefix,
      topics: { [this.topic]: this.topicOptions },
      sweepIntervalMs: SWEEP_MS,
      logger: { log: collect('log'), warn: collect('warn'), error: collect('error'), debug: collect('debug') },
    });
    this.pool = new WorkerPool(
      {
        connection: options.workerConnection ?? redis.url,
        prefix: this.prefix,
        topic: this.topic,
        topicOptions: this.topicOptions,
        sweepIntervalMs: SWEEP_MS,
        drainMs: options.drainMs ?? 5_000,
        effectsUrl: context.effectsUrl,
        effectsPrefix: this.effectsPrefix,
        workMs: options.workMs ?? [2, 20],
        ...options.worker,
      },
      options.pool,
    );
    this.reader = new EffectsReader(context.effectsClient, this.effectsPrefix);
  }

  /** Opens a rig (starting a Redis unless one is given). */
  static async open(name: string, context: RunContext, options: RigOptions = {}): Promise<Rig> {
    const given = options.redis instanceof RedisServer;
    const redis = options.redis instanceof RedisServer ? options.redis : await RedisServer.start(options.redis ?? {});
    return new Rig(name, context, redis, options, !given);
  }

  /** Schedules through the harness' engine; acknowledged ones join `expected`. */
  async schedule(items: readonly ScheduleItem[]): Promise<number> {
    let acknowledged = 0;
    await Promise.all(
      items.map(async (item) => {
        try {
          const timing = item.at !== undefined ? { at: item.at } : { delayMs: item.delayMs ?? 0 };
          const result = await this.engine.schedule(this.topic, item.id, item.payload === undefined ? timing : { ...timing, payload: item.payload });
          this.expected.set(item.id, result.dueAt);
          acknowledged += 1;
        } catch (error) {
          this.rejected.set(item.id, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        }
      }),
    );
    return acknowledged;
  }

  /**
   * Schedules `count` timeouts spread evenly over `durationMs`, each due `delayMs` (a random value
   * in the range) after it is scheduled. Runs `during` meanwhile (the faults), and resolves when both are done.
   */
  async stream(
    plan: { count: number; durationMs: number; delayMs: [number, number]; idPrefix?: string; payload?: (i: number) => ScheduleItem['payload'] },
    during?: (signal: { done: boolean }) => Promise<void>,
  ): Promise<void> {
    const signal = { done: false };
    const faults = during?.(signal) ?? Promise.resolve();
    const ticks = Math.max(1, Math.round(plan.durationMs / 100));
    const started = Date.now();
    let next = 0;
    const pending: Promise<number>[] = [];
    for (let tick = 1; tick <= ticks; tick += 1) {
      const upTo = Math.round((plan.count * tick) / ticks);
      const items: ScheduleItem[] = [];
      for (; next < upTo; next += 1) {
        const [min, max] = plan.delayMs;
        items.push({ id: `${plan.idPrefix ?? 't'}-${next}`, delayMs: Math.round(min + Math.random() * (max - min)), payload: plan.payload?.(next) ?? { n: next } });
      }
      pending.push(this.schedule(items));
      const wait = started + tick * 100 - Date.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(pending);
    signal.done = true;
    await faults;
  }

  /**
   * Waits until every acknowledged schedule has its effect and the topic holds nothing firing and
   * exactly `leftOver.pending` pending (default 0; so no further run can come), with at least
   * `leftOver.dead` dead letters, or until the deadline. Returns whether it got there.
   */
  async settle(deadlineMs: number, leftOver: { dead?: number; pending?: number } = {}): Promise<boolean> {
    const dead = leftOver.dead ?? 0;
    const pending = leftOver.pending ?? 0;
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      const applied = await this.reader.appliedCount().catch(() => 0);
      const stats = await this.engine.stats(this.topic).catch(() => undefined);
      this.settleState = `${applied} of ${this.expected.size} effects in; ${stats ? `${stats.pending} pending, ${stats.firing} firing, ${stats.dead} dead` : 'stats unavailable'}; ${this.pool.alive.length} live workers`;
      if (applied >= this.expected.size && stats && stats.pending === pending && stats.firing === 0 && stats.dead >= dead) return true;
      await sleep(200);
    }
    return false;
  }

  /** What the last `settle` saw (for the failure detail of a scenario that did not settle). */
  settleState = 'not settled yet';

  /** Counts the scenario. */
  async figures(): Promise<Figures> {
    return tally(this.expected, await this.reader.snapshot());
  }

  /** Builds the result from the figures, the targets and the scenario's own checks. */
  async result(targets: Targets, checks: Check[] = [], notes: string[] = [], figures?: Figures): Promise<ScenarioResult> {
    const counted = figures ?? (await this.figures());
    const failures = judge(counted, targets, checks.map((check) => (check.ok || check.detail || !/^settled/.test(check.name) ? check : { ...check, detail: this.settleState })));
    return {
      name: this.name,
      scheduled: counted.scheduled,
      lost: counted.lost,
      duplicateEffects: counted.duplicateEffects,
      duplicateDeliveries: counted.duplicateDeliveries,
      maxLatenessMs: counted.maxLatenessMs,
      boundMs: targets.boundMs ?? null,
      pass: failures.length === 0,
      failures,
      notes: [
        `stale writes refused ${counted.staleWritesRefused}, repeats absorbed ${counted.absorbedRepeats}, orphaned claims recovered ${counted.recoveredOrphans}, rejected schedules ${this.rejected.size}`,
        ...notes,
      ],
    };
  }

  /** Stops the workers, the harness' engine, the Redis it started, and deletes the effect records. */
  async close(): Promise<void> {
    await this.pool.close();
    await this.engine.stop({ drainMs: 0 }).catch(() => undefined);
    await this.reader.clear().catch(() => undefined);
    if (this.ownsRedis) await this.redis.stop();
  }
}

/** Runs `body` on a fresh rig and always closes it. */
export async function withRig(
  name: string,
  context: RunContext,
  options: RigOptions,
  body: (rig: Rig) => Promise<ScenarioResult>,
): Promise<ScenarioResult> {
  const rig = await Rig.open(name, context, options);
  try {
    return await body(rig);
  } finally {
    await rig.close();
  }
}

/** Waits `ms`: for pacing faults and load, never to wait for an outcome. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` every `everyMs` until it returns true or `timeoutMs` passed; returns the last answer. */
export async function pollUntil(probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '[unserialisable context]';
  }
}
