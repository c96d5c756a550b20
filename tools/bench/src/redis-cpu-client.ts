// A client process of the Redis CPU measurement (redis-cpu.ts): does one phase of one kind of
// operation against the Redis it is given, so that the measured server does not share a process
// with its load. Spoken to over IPC: `prepare` (set up, e.g. store the timeouts to cancel),
// `go` (run the phase), and for firing phases `finish` (stop the engine once the harness counted
// every fire); it answers `prepared`, `progress` and `done` with its own CPU over the phase.
import { randomUUID } from 'node:crypto';
import { DurableTimeouts } from '@durable-timeout/core';
import { payloadOf } from './redis-cpu-figures.js';
import { connectionOf } from './systems/engine.system.js';
import { inPool, type RedisTarget } from './systems/system.js';

/** The kinds of phase a client runs. */
export type CpuPhaseKind = 'schedule' | 'scheduleMany' | 'cancel' | 'cancelMany' | 'fire' | 'store-due';

/** One phase, as sent to a client. */
export interface CpuPhase {
  kind: CpuPhaseKind;
  target: RedisTarget;
  prefix: string;
  topic: string;
  slots: number;
  /** Timeouts the phase schedules, cancels or (for `fire`: none, it fires what is stored) stores. */
  count: number;
  /** Calls in flight (`schedule`, `cancel`) or items per call (`scheduleMany`, `cancelMany`). */
  width: number;
  /** `store-due`: 0 stores every timeout due now; otherwise their due times spread evenly over this many ms, from `leadMs` on. */
  dueOverMs: number;
  /** `store-due` with `dueOverMs`: how far ahead the first timeout is due (time to store them all and start firing). */
  leadMs: number;
}

/** Messages to a client. */
export type ToCpuClient = { type: 'prepare'; phase: CpuPhase } | { type: 'go' } | { type: 'finish' };

/** Messages from a client. */
export type FromCpuClient =
  | { type: 'prepared' }
  | { type: 'progress'; fired: number }
  | { type: 'done'; userUs: number; systemUs: number; elapsedMs: number; firstFireAt: number; lastFireAt: number }
  | { type: 'failed'; message: string };

/** Every timeout of the non-firing phases is due this far ahead. */
const AHEAD_MS = 3_600_000;

function send(message: FromCpuClient): Promise<void> {
  return new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
}

function nextMessage(type: ToCpuClient['type']): Promise<ToCpuClient> {
  return new Promise((resolve) => {
    const listener = (message: ToCpuClient): void => {
      if (message.type !== type) return;
      process.off('message', listener);
      resolve(message);
    };
    process.on('message', listener);
  });
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function storeAll(timeouts: DurableTimeouts, topic: string, ids: readonly string[], at: (index: number) => number): Promise<void> {
  for (const [c, batch] of chunks(ids, 1_000).entries()) {
    const results = await timeouts.scheduleMany(
      topic,
      batch.map((id, i) => ({ id, at: at(c * 1_000 + i), payload: payloadOf(c * 1_000 + i) })),
    );
    const failed = results.find((r) => !r.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}

async function run(phase: CpuPhase): Promise<void> {
  const options = { connection: connectionOf(phase.target), prefix: phase.prefix, topics: { [phase.topic]: { slots: phase.slots } }, logger: null };
  const timeouts = new DurableTimeouts(options);
  const ids = Array.from({ length: phase.count }, () => randomUUID());
  // Connects and loads the scripts, so the phase is as warm as a long-running service.
  await timeouts.schedule(phase.topic, 'warm-up', { delayMs: AHEAD_MS });
  await timeouts.cancel(phase.topic, 'warm-up');
  const now = Date.now();
  if (phase.kind === 'cancel' || phase.kind === 'cancelMany') await storeAll(timeouts, phase.topic, ids, () => now + AHEAD_MS);
  if (phase.kind === 'store-due') {
    const first = phase.dueOverMs > 0 ? now + phase.leadMs : now;
    await storeAll(timeouts, phase.topic, ids, (i) => first + Math.floor((i * phase.dueOverMs) / phase.count));
  }
  const firing = phase.kind === 'fire' ? new DurableTimeouts(options) : undefined;
  let fired = 0;
  let reported = 0;
  let firstFireAt = 0;
  let lastFireAt = 0;
  firing?.handle(phase.topic, () => {
    fired++;
    lastFireAt = Date.now();
    if (firstFireAt === 0) firstFireAt = lastFireAt;
  });
  const report = (): void => {
    if (fired > reported) void send({ type: 'progress', fired: fired - reported });
    reported = fired;
  };
  await send({ type: 'prepared' });
  await nextMessage('go');

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  switch (phase.kind) {
    case 'schedule':
      await inPool(ids.length, phase.width, (i) => timeouts.schedule(phase.topic, ids[i]!, { delayMs: AHEAD_MS, payload: payloadOf(i) }));
      break;
    case 'scheduleMany':
      for (const [c, batch] of chunks(ids, phase.width).entries()) {
        await timeouts.scheduleMany(phase.topic, batch.map((id, i) => ({ id, delayMs: AHEAD_MS, payload: payloadOf(c * phase.width + i) })));
      }
      break;
    case 'cancel':
      await inPool(ids.length, phase.width, async (i) => {
        if ((await timeouts.cancel(phase.topic, ids[i]!)) !== 'cancelled') throw new Error(`timeout ${i} was not cancelled`);
      });
      break;
    case 'cancelMany':
      for (const batch of chunks(ids, phase.width)) await timeouts.cancelMany(phase.topic, batch);
      break;
    case 'fire': {
      const finish = nextMessage('finish');
      const ticker = setInterval(report, 50);
      await firing!.start();
      await finish;
      clearInterval(ticker);
      await firing!.stop({ drainMs: 5_000 });
      report();
      break;
    }
    case 'store-due':
      break;
  }
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await timeouts.stop({ drainMs: 0 });
  await send({ type: 'done', userUs: cpu.user, systemUs: cpu.system, elapsedMs, firstFireAt, lastFireAt });
}

if (process.send) {
  void nextMessage('prepare').then((message) =>
    run((message as Extract<ToCpuClient, { type: 'prepare' }>).phase).then(
      () => process.exit(0),
      (error: unknown) => {
        void send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }).then(() => process.exit(1));
      },
    ),
  );
}
