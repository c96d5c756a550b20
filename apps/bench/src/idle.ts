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
const SLOTS = 16;
/** Lets the start-up claims and subscriptions finish before the window opens. */
const SETTLE_MS = 1_000;

/**
 * Cost of one idle engine instance (4 topics x 16 slots, handlers registered, nothing scheduled):
 * commands it sends per second, counted with MONITOR (a command run inside a Lua script shows as
 * source `lua` and is counted apart), and commands Redis runs for it per second (commandstats).
 */
export async function measureIdle(target: RedisTarget, monitorClient: Redis, probe: RedisProbe, windowMs: number): Promise<IdleResult> {
  await probe.flushAll();
  const topics = Object.fromEntries(Array.from({ length: TOPICS }, (_, i) => [`idle${i}`, { slots: SLOTS }]));
  const timeouts = new DurableTimeouts({ connection: connectionOf(target), prefix: 'idle', topics, logger: null });
  for (const topic of Object.keys(topics)) timeouts.handle(topic, () => undefined);
  await timeouts.start();
  try {
    await sleep(SETTLE_MS);
    const monitor = await monitorClient.monitor();
    let sent = 0;
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // The probe's own INFO calls show up too; they are not the engine's.
      if (source !== 'lua' && String(args[0]).toLowerCase() !== 'info') sent++;
    });
    const before = await probe.commandCalls();
    await sleep(windowMs);
    const after = await probe.commandCalls();
    monitor.disconnect();
    return {
      system: SYSTEM.engine,
      commandsPerSec: (sent * 1000) / windowMs,
      executedPerSec: (commandsBetween(before, after) * 1000) / windowMs,
      windowMs,
      topics: TOPICS,
      slotsPerTopic: SLOTS,
    };
  } finally {
    await timeouts.stop({ drainMs: 0 });
  }
}
