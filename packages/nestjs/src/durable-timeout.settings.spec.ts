import { describe, expect, it } from '@jest/globals';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_DRAIN_MS, DEFAULT_SWEEP_INTERVAL_MS } from './durable-timeout.constants.js';
import { engineOptionsOf, resolveDurableTimeoutSettings } from './durable-timeout.settings.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import type { DurableTimeoutModuleOptions } from './interfaces/durable-timeout-module-options.interface.js';

describe('resolveDurableTimeoutSettings', () => {
  it('applies the defaults', () => {
    expect(resolveDurableTimeoutSettings({ topics: { payment: {}, ride: { slots: 4 } } })).toEqual({
      topics: ['payment', 'ride'],
      drainMs: DEFAULT_DRAIN_MS,
      sweepIntervalMs: DEFAULT_SWEEP_INTERVAL_MS,
      commandTimeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
      startPollers: true,
    });
  });

  it('keeps given values and overrides', () => {
    const settings = resolveDurableTimeoutSettings(
      { topics: { payment: {} }, drainMs: 0, sweepIntervalMs: 5_000, commandTimeoutMs: 250 },
      { startPollers: false },
    );
    expect(settings).toMatchObject({ drainMs: 0, sweepIntervalMs: 5_000, commandTimeoutMs: 250, startPollers: false });
  });

  it.each([
    [{ topics: {} }, /'topics' must be an object with at least one topic/],
    [{ topics: null }, /'topics'/],
    [{ topics: { a: {} }, drainMs: -1 }, /'drainMs' must be a finite number.*got -1/],
    [{ topics: { a: {} }, drainMs: Number.NaN }, /'drainMs'/],
    [{ topics: { a: {} }, drainMs: '10' }, /'drainMs'/],
    [{ topics: { a: {} }, sweepIntervalMs: 0 }, /'sweepIntervalMs'/],
    [{ topics: { a: {} }, commandTimeoutMs: Number.POSITIVE_INFINITY }, /'commandTimeoutMs'/],
    [null, /the options must be an object/],
  ])('refuses %p with a message that says what to fix', (options, message) => {
    const resolve = (): unknown => resolveDurableTimeoutSettings(options as unknown as DurableTimeoutModuleOptions);
    expect(resolve).toThrow(InvalidModuleOptionsError);
    expect(resolve).toThrow(message);
    expect(resolve).toThrow(/Invalid DurableTimeoutModule options: .*Fix the object passed to forRoot/);
  });
});

describe('engineOptionsOf', () => {
  it('passes everything but drainMs to the engine', () => {
    const options: DurableTimeoutModuleOptions = { connection: 'redis://x', prefix: 'p', topics: { a: {} }, drainMs: 5, sweepIntervalMs: 9 };
    expect(engineOptionsOf(options)).toEqual({ connection: 'redis://x', prefix: 'p', topics: { a: {} }, sweepIntervalMs: 9 });
  });
});
