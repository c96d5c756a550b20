import { DurableTimeouts, InvalidOptionsError } from '@durable-timeout/core';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error.js';
import type { DurableTimeoutModuleOptions, DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { NestTimeoutLogger } from './nest-timeout.logger.js';

/**
 * Creates the module's engine. The core validates every option and fills in every default (one
 * rule, the same `stop()` applies); what it refuses becomes `InvalidModuleOptionsError`, with the
 * core's error as its `cause`. `logger` defaults to Nest's `Logger`.
 */
export function createModuleEngine(options: DurableTimeoutModuleOptions): DurableTimeouts {
  if (options === null || typeof options !== 'object') {
    throw new InvalidModuleOptionsError(durableTimeoutMessages.optionsNotObject());
  }
  try {
    return new DurableTimeouts({ logger: new NestTimeoutLogger(), ...options });
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new InvalidModuleOptionsError(error.message, { cause: error });
  }
}

/** The module's settings: what its engine runs with (read from the engine, so never a second copy of its defaults). */
export function settingsOf(engine: Pick<DurableTimeouts, 'settings'>, startPollers = true): DurableTimeoutSettings {
  const { topics, drainMs, sweepIntervalMs, commandTimeoutMs } = engine.settings;
  return { topics: Object.freeze(Object.keys(topics)), drainMs, sweepIntervalMs, commandTimeoutMs, startPollers };
}
