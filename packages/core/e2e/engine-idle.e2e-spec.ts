import { describe, expect, it } from '@jest/globals';
import { monitorCommands, RedisServer } from '@durable-timeout/redis-testing';
import { recordingLogger, uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

// A server of its own: the command counter must see this engine's traffic only.
let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

/** Counts the commands clients send (MONITOR), leaving out those run inside scripts. */
async function countCommands(windowMs: number): Promise<number> {
  let commands = 0;
  const monitor = await monitorCommands(server.port, server.host, ({ fromScript }) => {
    if (!fromScript) commands++;
  });
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  monitor.stop();
  return commands;
}

describe('an idle instance', () => {
  it('costs one claim per slot per sweep, no more (4 topics x 16 slots)', async () => {
    const sweepIntervalMs = 1_000;
    const topics = { a: {}, b: {}, c: {}, d: {} };
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics, sweepIntervalMs });
    for (const topic of Object.keys(topics) as (keyof typeof topics)[]) timeouts.handle(topic, () => undefined);
    await timeouts.start();
    // Let the first claims of start() go by, then count over a window of several sweeps.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const windowMs = 3_000;
    const commands = await countCommands(windowMs);
    const slots = 4 * 16;
    // Each slot sweeps every 0.85-1.0 x sweepIntervalMs: at most slots * window / (0.85 * sweep), plus timer slack.
    expect(commands).toBeLessThanOrEqual(Math.ceil((slots * windowMs) / (0.85 * sweepIntervalMs)) + slots);
    expect(commands).toBeGreaterThanOrEqual(slots);
  });

  it('start() warns when Redis keeps no append-only file', async () => {
    const logger = recordingLogger();
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { a: {} }, logger });
    timeouts.handle('a', () => undefined);
    await timeouts.start();
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      expect.stringMatching(/append-only file/),
    ]);
  });
});
