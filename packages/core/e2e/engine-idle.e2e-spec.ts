import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { connect } from 'node:net';
import { recordingLogger, uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

// A server of its own: the command counter must see this engine's traffic only.
let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

/**
 * Counts the commands clients send (MONITOR), leaving out those run inside scripts. A plain socket
 * reads the MONITOR stream: the client library's own monitor mode can lose track of its reply
 * queue when the stream starts while replies are still in flight.
 */
async function countCommands(windowMs: number): Promise<number> {
  const socket = connect(server.port, server.host);
  let commands = 0;
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    const lines = pending.split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (/^\+\d+\.\d+ \[\d+ (?!lua\])/.test(line)) commands++;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('MONITOR\r\n');
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  socket.destroy();
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
