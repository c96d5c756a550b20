import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { DurableTimeouts } from '@durable-timeout/core';
import { commandsBetween } from './redis-info.js';
import type { RedisProbe } from './redis-probe.js';
import type { IdleResult } from './report.js';
import { connectionOf } from './systems/engine.system.js';
import { SYSTEM } from './systems/names.js';
import type { RedisTarget } from './systems/system.js';

const TOPICS = 4;
/** The window; the busiest such window is reported beside the mean. */
const WINDOW_MS = 10_000;
const SLOTS = 16;
/** Lets the start-up claims and subscriptions finish before the window opens. */
const SETTLE_MS = 1_000;

/**
 * Cost of one idle engine instance (4 topics x 16 slots, handlers registered, nothing scheduled):
 * commands it sends per second, counted with MONITOR (a command run inside a Lua script shows as
 * source `lua` and is counted apart), and commands Redis runs for it per second (commandstats).
 * An idle instance only sweeps, once per `sweepIntervalMs` (60 s by default) per slot, so the
 * full run watches for 70 s: a 10-s window alone would see all the sweeps or none.
 */
export async function measureIdle(target: RedisTarget, monitorClient: Redis, probe: RedisProbe, durationMs: number): Promise<IdleResult> {
  await probe.flushAll();
  const topics = Object.fromEntries(Array.from({ length: TOPICS }, (_, i) => [`idle${i}`, { slots: SLOTS }]));
  const timeouts = new DurableTimeouts({ connection: connectionOf(target), prefix: 'idle', topics, logger: null });
  for (const topic of Object.keys(topics)) timeouts.handle(topic, () => undefined);
  await timeouts.start();
  try {
    await sleep(SETTLE_MS);
    const monitor = await monitorClient.monitor();
    const sentAt: number[] = [];
    monitor.on('monitor', (time: string, args: string[], source: string) => {
      // The probe's own INFO calls show up too; they are not the engine's.
      if (source !== 'lua' && String(args[0]).toLowerCase() !== 'info') sentAt.push(Number(time) * 1000);
    });
    const before = await probe.commandCalls();
    const startedAt = Date.now();
    await sleep(durationMs);
    const after = await probe.commandCalls();
    monitor.disconnect();
    const sent = sentAt.filter((at) => at >= startedAt).length;
    return {
      system: SYSTEM.engine,
      commandsPerSec: (sent * 1000) / durationMs,
      busiestWindowPerSec: (busiestWindow(sentAt, startedAt, durationMs, WINDOW_MS) * 1000) / Math.min(WINDOW_MS, durationMs),
      executedPerSec: (commandsBetween(before, after) * 1000) / durationMs,
      windowMs: durationMs,
      topics: TOPICS,
      slotsPerTopic: SLOTS,
    };
  } finally {
    await timeouts.stop({ drainMs: 0 });
  }
}

/** Most events in any `windowMs` window (sliding, aligned on events) within [startedAt, startedAt + durationMs). */
export function busiestWindow(times: readonly number[], startedAt: number, durationMs: number, windowMs: number): number {
  const inside = times.filter((t) => t >= startedAt && t < startedAt + durationMs).sort((a, b) => a - b);
  let best = 0;
  let first = 0;
  for (let last = 0; last < inside.length; last++) {
    while (inside[last]! - inside[first]! >= windowMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}
