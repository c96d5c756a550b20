import type { DurableTimeoutsOptions } from '@durable-timeout/core';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_DRAIN_MS, DEFAULT_SWEEP_INTERVAL_MS } from './durable-timeout.constants.js';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import type { DurableTimeoutModuleOptions, DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';

/**
 * The one place where the module's defaults are merged and its own options validated. The engine
 * validates the rest (connection, topic settings) when it is constructed.
 */
export function resolveDurableTimeoutSettings(
  options: DurableTimeoutModuleOptions,
  overrides: Partial<Pick<DurableTimeoutSettings, 'startPollers'>> = {},
): DurableTimeoutSettings {
  if (options === null || typeof options !== 'object') invalid(durableTimeoutMessages.optionsNotObject());
  const {
    topics,
    drainMs = DEFAULT_DRAIN_MS,
    sweepIntervalMs = DEFAULT_SWEEP_INTERVAL_MS,
    commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  } = options;
  if (topics === null || typeof topics !== 'object' || Object.keys(topics).length === 0) {
    invalid(durableTimeoutMessages.noTopics());
  }
  if (typeof drainMs !== 'number' || !Number.isFinite(drainMs) || drainMs < 0) {
    invalid(durableTimeoutMessages.invalidDrainMs(drainMs));
  }
  if (typeof sweepIntervalMs !== 'number' || !Number.isFinite(sweepIntervalMs) || sweepIntervalMs <= 0) {
    invalid(durableTimeoutMessages.invalidSweepIntervalMs(sweepIntervalMs));
  }
  if (typeof commandTimeoutMs !== 'number' || !Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0) {
    invalid(durableTimeoutMessages.invalidCommandTimeoutMs(commandTimeoutMs));
  }
  return {
    topics: Object.freeze(Object.keys(topics)),
    drainMs,
    sweepIntervalMs,
    commandTimeoutMs,
    startPollers: overrides.startPollers ?? true,
  };
}

/** The engine's share of the module options: everything but the module's own `drainMs`. */
export function engineOptionsOf(options: DurableTimeoutModuleOptions): DurableTimeoutsOptions {
  const { drainMs: _drainMs, ...engineOptions } = options;
  return engineOptions;
}

function invalid(problem: string): never {
  throw new InvalidModuleOptionsError(durableTimeoutMessages.invalidOptions(problem));
}
