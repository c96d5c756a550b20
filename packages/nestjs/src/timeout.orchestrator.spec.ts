import { describe, expect, it, jest } from '@jest/globals';
import type { DurableTimeouts } from '@durable-timeout/core';
import { createTestingTimeouts } from '@durable-timeout/core/testing';
import { settingsOf } from './durable-timeout.settings.js';
import { ModuleNotStartedError } from './errors/module-not-started.error.js';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';
import { TimeoutOrchestrator } from './timeout.orchestrator.js';
import { TimeoutReadinessWatcher } from './timeout-readiness.watcher.js';

function setup(options: { handlers: string[]; startPollers?: boolean; drainMs?: number; start?: () => Promise<void> }) {
  const engine = {
    start: jest.fn(options.start ?? (async () => undefined)),
    stop: jest.fn(async (_options?: { drainMs?: number }) => undefined),
    on: jest.fn(() => () => undefined),
  };
  const settings = settingsOf(
    createTestingTimeouts({ topics: { payment: {}, ride: {} }, drainMs: options.drainMs ?? 2_500 }).timeouts,
    options.startPollers ?? true,
  );
  const registry = new TimeoutHandlerRegistry();
  for (const topic of options.handlers) registry.add({ topic, className: 'C', methodName: topic });
  const readiness = new TimeoutReadinessWatcher();
  const orchestrator = new TimeoutOrchestrator(engine as unknown as DurableTimeouts, settings, registry, readiness);
  return { engine, orchestrator, readiness };
}

describe('TimeoutOrchestrator', () => {
  it('starts the pollers at bootstrap when the application has handlers, then is ready', async () => {
    const { engine, orchestrator, readiness } = setup({ handlers: ['payment'] });
    await orchestrator.onApplicationBootstrap();
    expect(engine.start).toHaveBeenCalledTimes(1);
    await expect(readiness.waitUntilReady()).resolves.toBeUndefined();
  });

  it('starts no pollers in an application without handlers (it only schedules)', async () => {
    const { engine, orchestrator, readiness } = setup({ handlers: [] });
    await orchestrator.onApplicationBootstrap();
    expect(engine.start).not.toHaveBeenCalled();
    await expect(readiness.waitUntilReady()).resolves.toBeUndefined();
  });

  it('starts no pollers when a manual clock drives firing (testing module)', async () => {
    const { engine, orchestrator } = setup({ handlers: ['payment'], startPollers: false });
    await orchestrator.onApplicationBootstrap();
    expect(engine.start).not.toHaveBeenCalled();
  });

  it('fails bootstrap and readiness when the engine cannot start', async () => {
    const { orchestrator, readiness } = setup({
      handlers: ['payment'],
      start: async () => {
        throw new Error('redis down');
      },
    });
    await expect(orchestrator.onApplicationBootstrap()).rejects.toThrow('redis down');
    await expect(readiness.waitUntilReady()).rejects.toThrow(ModuleNotStartedError);
  });

  it('drains with drainMs before shutdown and stops only once', async () => {
    const { engine, orchestrator } = setup({ handlers: ['payment'], drainMs: 1_234 });
    await orchestrator.onApplicationBootstrap();
    await orchestrator.beforeApplicationShutdown();
    await orchestrator.onApplicationShutdown();
    expect(engine.stop).toHaveBeenCalledTimes(1);
    expect(engine.stop).toHaveBeenCalledWith({ drainMs: 1_234 });
  });

  it('still stops (without draining) when only the last shutdown hook runs', async () => {
    const { engine, orchestrator } = setup({ handlers: [] });
    await orchestrator.onApplicationShutdown();
    expect(engine.stop).toHaveBeenCalledWith({ drainMs: 0 });
  });
});
