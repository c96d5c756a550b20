import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { TimeoutsStoppedError } from '../src/errors/timeouts-stopped.error.js';
import { nextEvent, uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));

describe('stop({ drainMs })', () => {
  it('waits for running handlers to finish and acks them before resolving', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started = false;
    let finished = false;
    timeouts.handle('payment', async () => {
      started = true;
      await finishing;
      finished = true;
    });
    const fired: string[] = [];
    timeouts.on('fired', (event) => fired.push(event.id));
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    await waitUntil(() => started, 5_000, 'handler started');
    let stopped = false;
    const summary = nextEvent(timeouts, 'stopped');
    const stopping = timeouts.stop({ drainMs: 10_000 }).then(() => {
      stopped = true;
    });
    await expect(timeouts.schedule('payment', 'order-2', { delayMs: 0 })).rejects.toThrow(TimeoutsStoppedError);
    // Stop must still be waiting: the handler has not returned.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(finished).toBe(true);
    expect(await summary).toEqual({ drainMs: 10_000, handlersRunning: 1, handlersFinished: 1, handlersAborted: 0, handedBack: 0, tookMs: expect.any(Number) });
    expect(fired).toEqual(['order-1']);
    const reader = rig.open({ connection: server.url, prefix: uniquePrefixOf(timeouts), topics: { payment: {} } });
    expect(await reader.get('payment', 'order-1')).toBeNull();
  });

  it('past drainMs aborts the signal, releases the timeout (no attempt spent), and a running instance fires it at once', async () => {
    const prefix = uniquePrefix();
    const leaseMs = 30_000;
    const leaving = rig.open({ connection: server.url, prefix, topics: { payment: { leaseMs } } });
    let aborted = false;
    let leavingStarted = false;
    leaving.handle('payment', (event) => {
      leavingStarted = true;
      return new Promise<void>((_resolve, reject) => {
        event.signal.addEventListener('abort', () => {
          aborted = true;
          reject(event.signal.reason as Error);
        });
      });
    });
    const released = nextEvent(leaving, 'released');
    await leaving.start();
    await leaving.schedule('payment', 'order-1', { delayMs: 0, payload: 'p' });
    await waitUntil(() => leavingStarted, 5_000, 'handler started');

    // The other instance sleeps on a long sweep: only the release's wake-up can bring it in time.
    const staying = rig.open({ connection: server.url, prefix, topics: { payment: { leaseMs } }, sweepIntervalMs: 3_600_000 });
    const attempts: number[] = [];
    staying.handle('payment', (event) => {
      attempts.push(event.attempt);
    });
    await staying.start();
    const refired = nextEvent(staying, 'fired', (event) => event.id === 'order-1', 10_000);
    const stoppedAt = Date.now();
    const summary = nextEvent(leaving, 'stopped');
    await leaving.stop({ drainMs: 200 });
    expect(aborted).toBe(true);
    expect(await released).toEqual({ topic: 'payment', count: 1 });
    expect(await summary).toEqual({ drainMs: 200, handlersRunning: 1, handlersFinished: 0, handlersAborted: 1, handedBack: 1, tookMs: expect.any(Number) });
    await refired;
    expect(Date.now() - stoppedAt).toBeLessThan(leaseMs / 2);
    expect(attempts).toEqual([1]);
  });

  it('returns within drainMs plus one release round trip when a handler ignores its abort signal, with the timeout released', async () => {
    const prefix = uniquePrefix();
    // A long commandTimeoutMs makes any wait bounded by it (rather than by the release itself) stand out.
    const commandTimeoutMs = 3_000;
    const drainMs = 300;
    const timeouts = rig.open({ connection: server.url, prefix, topics: { payment: {} }, commandTimeoutMs });
    let started = false;
    let finish!: () => void;
    timeouts.handle('payment', () => {
      started = true;
      // Never looks at event.signal: runs on after the engine gave its timeout up.
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    const released = nextEvent(timeouts, 'released');
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    await waitUntil(() => started, 5_000, 'handler started');

    const stopping = performance.now();
    await timeouts.stop({ drainMs });
    const stopMs = performance.now() - stopping;
    expect(stopMs).toBeGreaterThanOrEqual(drainMs - 5);
    expect(stopMs).toBeLessThan(drainMs + commandTimeoutMs);
    expect(await released).toEqual({ topic: 'payment', count: 1 });
    const reader = rig.open({ connection: server.url, prefix, topics: { payment: {} } });
    expect(await reader.get('payment', 'order-1')).toMatchObject({ state: 'pending', attempt: 0 });
    // The handler returning late changes nothing: it is neither acked nor failed.
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await reader.get('payment', 'order-1')).toMatchObject({ state: 'pending', attempt: 0 });
  });

  it('is idempotent, and an instance that never started stops at once', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    await timeouts.schedule('payment', 'a', { delayMs: 60_000 });
    await Promise.all([timeouts.stop(), timeouts.stop({ drainMs: 5 })]);
    await timeouts.stop();
    await expect(timeouts.start()).rejects.toThrow(TimeoutsStoppedError);
    await expect(timeouts.get('payment', 'a')).rejects.toThrow(TimeoutsStoppedError);
    expect(() => timeouts.handle('payment', () => undefined)).toThrow(TimeoutsStoppedError);
  });
});

/** The prefix an engine was opened with (read back from its Redis store's key builder). */
function uniquePrefixOf(timeouts: { store: unknown }): string {
  return (timeouts.store as { keys: { prefix: string } }).keys.prefix;
}
