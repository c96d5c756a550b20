import { describe, expect, it, jest } from '@jest/globals';
import type { DurableTimeouts } from '@durable-timeout/core';
import { TimeoutReadinessWatcher } from './timeout-readiness.watcher.js';
import { TimeoutScheduler } from './timeout.scheduler.js';

describe('TimeoutScheduler', () => {
  it('passes every call to the engine unchanged and returns its result', async () => {
    const engine = {
      schedule: jest.fn(async (..._args: unknown[]) => ({ outcome: 'created' })),
      cancel: jest.fn(async (..._args: unknown[]) => 'cancelled'),
      get: jest.fn(async (..._args: unknown[]) => null),
      stats: jest.fn(async (..._args: unknown[]) => ({ topic: 'payment', pending: 1 })),
      listDead: jest.fn(async (..._args: unknown[]) => []),
      replayDead: jest.fn(async (..._args: unknown[]) => 3),
      purgeDead: jest.fn(async (..._args: unknown[]) => 4),
      scheduleMany: jest.fn(async (..._args: unknown[]) => [{ ok: true, outcome: 'created' }]),
      cancelMany: jest.fn(async (..._args: unknown[]) => [{ ok: true, result: 'not_found' }]),
      pause: jest.fn(async (..._args: unknown[]) => ({ topic: 'payment', paused: true, pausedAt: 5 })),
      resume: jest.fn(async (..._args: unknown[]) => ({ topic: 'payment', resumed: true, pausedMs: 7, shifted: 2 })),
      paused: jest.fn(async (..._args: unknown[]) => true),
    };
    const scheduler = new TimeoutScheduler<'payment'>(engine as unknown as DurableTimeouts, new TimeoutReadinessWatcher());
    expect(scheduler.engine).toBe(engine);
    await expect(scheduler.schedule('payment', 'o-1', { delayMs: 5, payload: { a: 1 } })).resolves.toEqual({ outcome: 'created' });
    expect(engine.schedule).toHaveBeenCalledWith('payment', 'o-1', { delayMs: 5, payload: { a: 1 } });
    await expect(scheduler.cancel('payment', 'o-1')).resolves.toBe('cancelled');
    expect(engine.cancel).toHaveBeenCalledWith('payment', 'o-1');
    await expect(scheduler.get('payment', 'o-1')).resolves.toBeNull();
    await expect(scheduler.stats('payment')).resolves.toEqual({ topic: 'payment', pending: 1 });
    await scheduler.listDead('payment', { limit: 2 });
    expect(engine.listDead).toHaveBeenCalledWith('payment', { limit: 2 });
    await expect(scheduler.replayDead('payment', ['o-1'])).resolves.toBe(3);
    expect(engine.replayDead).toHaveBeenCalledWith('payment', ['o-1']);
    await expect(scheduler.purgeDead('payment')).resolves.toBe(4);
    expect(engine.purgeDead).toHaveBeenCalledWith('payment', undefined);
    await expect(scheduler.scheduleMany('payment', [{ id: 'o-2', delayMs: 5, ifExists: 'keep' }])).resolves.toEqual([{ ok: true, outcome: 'created' }]);
    expect(engine.scheduleMany).toHaveBeenCalledWith('payment', [{ id: 'o-2', delayMs: 5, ifExists: 'keep' }]);
    await expect(scheduler.cancelMany('payment', ['o-2'])).resolves.toEqual([{ ok: true, result: 'not_found' }]);
    expect(engine.cancelMany).toHaveBeenCalledWith('payment', ['o-2']);
    await expect(scheduler.pause('payment')).resolves.toEqual({ topic: 'payment', paused: true, pausedAt: 5 });
    expect(engine.pause).toHaveBeenCalledWith('payment');
    await expect(scheduler.resume('payment', { shift: true })).resolves.toEqual({ topic: 'payment', resumed: true, pausedMs: 7, shifted: 2 });
    expect(engine.resume).toHaveBeenCalledWith('payment', { shift: true });
    await expect(scheduler.paused('payment')).resolves.toBe(true);
    expect(engine.paused).toHaveBeenCalledWith('payment');
  });

  it('waitUntilReady settles with the module bootstrap', async () => {
    const readiness = new TimeoutReadinessWatcher();
    const scheduler = new TimeoutScheduler({} as DurableTimeouts, readiness);
    let ready = false;
    const waiting = scheduler.waitUntilReady().then(() => {
      ready = true;
    });
    await Promise.resolve();
    expect(ready).toBe(false);
    readiness.markReady();
    await waiting;
    expect(ready).toBe(true);
  });
});
