import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { aesGcmCodec, ENGINE_DEFAULTS, InvalidOptionsError, slotOf, type DurableTimeoutsOptions } from '@durable-timeout/core';
import { createTestingTimeouts, MemoryTimeoutStore } from '@durable-timeout/core/testing';
import { createModuleEngine, settingsOf } from './durable-timeout.settings.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import type { DurableTimeoutModuleOptions } from './interfaces/durable-timeout-module-options.interface.js';

const memory = (): DurableTimeoutsOptions['store'] => new MemoryTimeoutStore();

describe('createModuleEngine', () => {
  it('creates the engine with the core defaults, which the module settings repeat', async () => {
    const engine = createModuleEngine({ topics: { payment: {}, ride: { slots: 4 } }, store: memory() });
    try {
      expect(settingsOf(engine)).toEqual({
        topics: ['payment', 'ride'],
        drainMs: ENGINE_DEFAULTS.drainMs,
        sweepIntervalMs: ENGINE_DEFAULTS.sweepIntervalMs,
        commandTimeoutMs: ENGINE_DEFAULTS.commandTimeoutMs,
        startPollers: true,
      });
    } finally {
      await engine.stop();
    }
  });

  it('passes the codec through to the engine: payloads are stored encoded, and read back whole', async () => {
    const store = new MemoryTimeoutStore();
    const codec = aesGcmCodec({ keys: { k: randomBytes(32) }, currentKeyId: 'k' });
    const engine = createModuleEngine({ topics: { payment: { slots: 1 } }, store, codec });
    try {
      await engine.schedule('payment', 'order-1', { delayMs: 60_000, payload: { card: '4111' } });
      const stored = await store.reads.get({ topic: 'payment', slot: slotOf('order-1', 1) }, 'order-1');
      expect(stored?.payload).not.toContain('4111');
      expect(await engine.get('payment', 'order-1')).toMatchObject({ payload: { card: '4111' } });
    } finally {
      await engine.stop();
    }
  });

  it('keeps given values', async () => {
    const engine = createModuleEngine({ topics: { payment: {} }, drainMs: 0, sweepIntervalMs: 5_000, commandTimeoutMs: 250, store: memory() });
    try {
      expect(settingsOf(engine, false)).toMatchObject({ drainMs: 0, sweepIntervalMs: 5_000, commandTimeoutMs: 250, startPollers: false });
    } finally {
      await engine.stop();
    }
  });

  it.each([
    [{ topics: {} }, /topics/],
    [{ topics: null }, /topics/],
    [{ topics: { a: {} }, drainMs: -1 }, /drainMs = -1: use a whole number from 0 to 3600000/],
    [{ topics: { a: {} }, drainMs: 4_000_000 }, /drainMs = 4000000: use a whole number from 0 to 3600000/],
    [{ topics: { a: {} }, drainMs: Number.NaN }, /drainMs/],
    [{ topics: { a: {} }, drainMs: '10' }, /drainMs/],
    [{ topics: { a: {} }, sweepIntervalMs: 0 }, /sweepIntervalMs/],
    [{ topics: { a: {} }, commandTimeoutMs: Number.POSITIVE_INFINITY }, /commandTimeoutMs/],
    [{ topics: { a: { slots: 3 } } }, /topics\.a\.slots/],
    [null, /the options must be an object/],
  ])('refuses %p with the core error as cause, and a message that says what to fix', (options, message) => {
    const create = (): unknown => createModuleEngine(options as unknown as DurableTimeoutModuleOptions);
    expect(create).toThrow(InvalidModuleOptionsError);
    expect(create).toThrow(message);
    expect(create).toThrow(/^DurableTimeoutModule options refused: .*Fix the object passed to forRoot/);
    if (options !== null) {
      try {
        create();
      } catch (error) {
        expect((error as Error).cause).toBeInstanceOf(InvalidOptionsError);
      }
    }
  });

  it.each([0, 1.4, 2_500, 3_600_000, 3_600_001, 4_000_000, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'accepts drainMs %p exactly when stop() does (one rule)',
    async (drainMs) => {
      const accepted = (() => {
        try {
          void createModuleEngine({ topics: { a: {} }, drainMs, store: memory() }).stop({ drainMs: 0 });
          return true;
        } catch {
          return false;
        }
      })();
      const { timeouts } = createTestingTimeouts({ topics: { a: {} } });
      const stopped = await timeouts.stop({ drainMs }).then(
        () => true,
        () => false,
      );
      if (!stopped) await timeouts.stop({ drainMs: 0 });
      expect(accepted).toBe(stopped);
    },
  );
});
