// A worker process of the chaos suite: one engine (DurableTimeouts) whose handler records every run
// and its guarded effect in the effects server. Controlled by the harness over IPC; SIGTERM runs
// the shutdown a service would (stop with drain), SIGKILL and SIGSTOP are the faults.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DurableTimeouts as Engine, ScheduleOccurrence, TimeoutEvent } from '@durable-timeout/core';
import { EffectsRecorder } from './harness/effects-store.js';
import { occurrenceEffectId, type ChaosPayload, FromWorker, type ScheduleItemResult, type ToWorker, type WorkerConfig, type WorkerCounters } from './worker-protocol.js';
import { chaosMessages } from './chaos.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

const config = JSON.parse(process.env.CHAOS_WORKER_CONFIG ?? 'null') as WorkerConfig | null;
if (!config) throw new HarnessError('process', chaosMessages.workerWithoutConfig());

if (config.clockSkewMs) skewClock(config.clockSkewMs);

// Imported after the clock is skewed, so the engine sees the skewed clock from its first line.
const { DurableTimeouts } = await import('@durable-timeout/core');

const builtinPrototypeKeys = new Set(Object.getOwnPropertyNames(Object.prototype));
const counters: WorkerCounters = { fired: 0, retried: 0, dead: 0, stale: 0, released: 0, errors: 0, inFlight: 0, unacked: 0, prototypePolluted: false, leaseLostStale: 0, leaseLostUnrenewed: 0, abortedOther: 0, maxLoopDelayMs: 0 };
const loopDelay = monitorEventLoopDelay({ resolution: 20 });
loopDelay.enable();
/** The counters with the event loop's worst delay so far. */
const snapshot = (): WorkerCounters => ({ ...counters, maxLoopDelayMs: Math.round(loopDelay.max / 1e6) });
const recorder = new EffectsRecorder(config.effectsUrl, config.effectsPrefix);
const runningTokens = new Map<string, number>();
/** Running occurrences of recurring schedules: `<name>\0<attempt>` -> effect id and token (acked under the effect id). */
const runningOccurrences = new Map<string, { effectId: string; token: number }>();
const schedules = config.schedules ?? {};
const handlesSchedules = Object.keys(schedules).length > 0;

const engine: Engine = new DurableTimeouts({
  connection: connectionOf(config),
  prefix: config.prefix,
  topics: handlesSchedules ? { [config.topic]: config.topicOptions, schedules: config.topicOptions } : { [config.topic]: config.topicOptions },
  sweepIntervalMs: config.sweepIntervalMs,
  ...(config.durability ? { durability: config.durability } : {}),
});

engine.on('fired', ({ topic, id, attempt }) => {
  counters.fired += 1;
  const key = `${id}\u0000${attempt}`;
  if (topic === 'schedules') {
    const occurrence = runningOccurrences.get(key);
    runningOccurrences.delete(key);
    counters.unacked = runningTokens.size + runningOccurrences.size;
    if (occurrence) recorder.acked(occurrence.effectId, occurrence.token).catch(() => undefined);
    return;
  }
  const token = runningTokens.get(key);
  runningTokens.delete(key);
  counters.unacked = runningTokens.size + runningOccurrences.size;
  if (token !== undefined) recorder.acked(id, token).catch(() => undefined);
});
engine.on('retried', ({ id }) => {
  counters.retried += 1;
  recorder.failureStored(id).catch(() => undefined);
});
engine.on('dead', () => (counters.dead += 1));
engine.on('stale', () => (counters.stale += 1));
engine.on('released', ({ count }) => (counters.released += count));
engine.on('error', () => (counters.errors += 1));

if (config.handle !== false) engine.handle(config.topic, (event) => run(event));
for (const name of Object.keys(schedules)) engine.schedules.handle(name, (occurrence) => runOccurrence(occurrence));

/** One occurrence of a recurring schedule: recorded like a timeout's run, under the id `<name>@<occurrenceAt>`. */
async function runOccurrence(occurrence: ScheduleOccurrence): Promise<void> {
  const effectId = occurrenceEffectId(occurrence.name, occurrence.occurrenceAt);
  counters.inFlight += 1;
  try {
    runningOccurrences.set(`${occurrence.name}\u0000${occurrence.attempt}`, { effectId, token: occurrence.fencingToken });
    counters.unacked = runningTokens.size + runningOccurrences.size;
    await recorder.begin(effectId, occurrence.fencingToken, occurrence.attempt, true, false);
    if (config!.reportRuns) send({ type: 'began', id: effectId, attempt: occurrence.attempt, fencingToken: occurrence.fencingToken });
    const [min, max] = config!.workMs;
    if (max > 0) await sleep(min + Math.random() * (max - min));
    if ((await recorder.effect(effectId, occurrence.fencingToken)) !== 0) await recorder.missed(effectId, occurrence.missed);
  } finally {
    counters.inFlight -= 1;
  }
}

async function run(event: TimeoutEvent): Promise<void> {
  counters.inFlight += 1;
  event.signal.addEventListener('abort', () => countAbort(event.signal.reason), { once: true });
  try {
    const chaos = chaosOf(event.payload);
    const failOnPurpose =
      // The first run that starts, not attempt 1: a worker that exits mid-handler (exit-once) can take
      // a claimed delivery with it before its handler starts, and that attempt never runs.
      (chaos?.chaos === 'fail-once' && !(await recorder.failedBefore(event.id))) ||
      (chaos?.chaos === 'exit-once' && event.attempt === 1) ||
      chaos?.chaos === 'exit-always' ||
      (chaos?.chaos === 'fail-until-healed' && !(await recorder.healed()));
    runningTokens.set(`${event.id}\u0000${event.attempt}`, event.fencingToken);
    counters.unacked = runningTokens.size + runningOccurrences.size;
    await recorder.begin(event.id, event.fencingToken, event.attempt, !failOnPurpose, chaos !== undefined);
    if (config!.reportRuns) send({ type: 'began', id: event.id, attempt: event.attempt, fencingToken: event.fencingToken });
    if (failOnPurpose) {
      await recorder.failed(event.id);
      if (chaos?.chaos === 'exit-once' || chaos?.chaos === 'exit-always') process.exit(3);
      throw new HarnessError('planned', chaosMessages.plannedFailure(event.attempt));
    }
    const [min, max] = chaos?.chaos === 'hang-once' && event.attempt === 1 ? [chaos.sleepMs ?? 0, chaos.sleepMs ?? 0] : config!.workMs;
    if (max > 0) await sleep(min + Math.random() * (max - min));
    await recorder.effect(event.id, event.fencingToken);
  } finally {
    counters.inFlight -= 1;
    if (Object.getOwnPropertyNames(Object.prototype).some((key) => !builtinPrototypeKeys.has(key))) counters.prototypePolluted = true;
  }
}

/** Why a handler's signal was aborted: a lost lease (stale or unrenewed) or anything else. */
function countAbort(reason: unknown): void {
  const message = reason instanceof Error && reason.name === 'LeaseLostError' ? reason.message : undefined;
  if (message === undefined) counters.abortedOther += 1;
  else if (/stale/.test(message)) counters.leaseLostStale += 1;
  else counters.leaseLostUnrenewed += 1;
}

function chaosOf(payload: unknown): ChaosPayload | undefined {
  if (typeof payload !== 'object' || payload === null || !Object.hasOwn(payload, 'chaos')) return undefined;
  const chaos = (payload as { chaos: unknown }).chaos;
  return typeof chaos === 'string' ? (payload as ChaosPayload) : undefined;
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'schedule') {
    Promise.all(
      message.items.map(async (item): Promise<ScheduleItemResult> => {
        try {
          const timing = item.at !== undefined ? { at: item.at } : { delayMs: item.delayMs ?? 0 };
          const result = await engine.schedule(config.topic, item.id, item.payload === undefined ? timing : { ...timing, payload: item.payload });
          return { id: item.id, dueAt: result.dueAt };
        } catch (error) {
          return { id: item.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
        }
      }),
    ).then((results) => send({ type: 'scheduled', requestId: message.requestId, results }));
  } else if (message.type === 'counters') {
    send({ type: 'counters', requestId: message.requestId, counters: snapshot() });
  }
});

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  engine
    .stop({ drainMs: config.drainMs })
    .catch(() => undefined)
    .then(async () => {
      send({ type: 'stopped', shutdownMs: Date.now() - started, counters: snapshot() });
      await recorder.close();
      process.disconnect?.();
      process.exit(0);
    });
});

await engine.start();
const nextAt: Record<string, number> = {};
for (const [name, options] of Object.entries(schedules)) nextAt[name] = (await engine.schedules.upsert(name, options)).nextAt;
send(handlesSchedules ? { type: 'ready', nextAt } : { type: 'ready' });

function send(message: FromWorker): void {
  if (process.connected) process.send?.(message);
}

function connectionOf(worker: WorkerConfig) {
  const connection = worker.connection;
  if (typeof connection === 'string' || 'sentinels' in connection || 'cluster' in connection) return connection;
  const { tlsCaFile, ...rest } = connection;
  return tlsCaFile ? { ...rest, tls: { ca: readFileSync(tlsCaFile) } } : rest;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function skewClock(skewMs: number): void {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(realNow() + skewMs);
      else super(...(args as [string]));
    }

    static override now(): number {
      return realNow() + skewMs;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
