import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { RedisUnavailableError } from '../src/store/redis-unavailable.error.js';
import { nextEvent, recordingLogger, uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
// AOF with fsync always: what was scheduled before the crash is still there after the restart.
const rig = engineSuite(() => RedisServer.start({ appendonly: true, appendfsync: 'always' }), (started) => (server = started));

describe('Redis down', () => {
  it('schedule fails fast with RedisUnavailableError; after a restart workers resume by themselves and fire what is due', async () => {
    const commandTimeoutMs = 500;
    const logger = recordingLogger();
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 4 } }, commandTimeoutMs, logger });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.start();
    await timeouts.schedule('payment', 'before-crash', { delayMs: 1_000 });
    await server.kill();

    const started = Date.now();
    await expect(timeouts.schedule('payment', 'during-outage', { delayMs: 0 })).rejects.toThrow(RedisUnavailableError);
    expect(Date.now() - started).toBeLessThan(commandTimeoutMs + 1_500);
    await expect(timeouts.cancel('payment', 'before-crash')).rejects.toThrow(RedisUnavailableError);
    expect((await timeouts.health()).redisLatencyMs).toBeNull();

    await server.restart();
    await waitUntil(() => fired.includes('before-crash'), 15_000, 'the timeout scheduled before the crash fired');
    const after = nextEvent(timeouts, 'fired', (event) => event.id === 'after-restart');
    await timeouts.schedule('payment', 'after-restart', { delayMs: 50 });
    await after;
    expect(fired).not.toContain('during-outage');
    expect((await timeouts.health()).redisLatencyMs).toEqual(expect.any(Number));
  });
});
