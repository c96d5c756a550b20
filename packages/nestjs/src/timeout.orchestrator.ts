import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DurableTimeouts } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_LOGGER_CONTEXT, DURABLE_TIMEOUT_SETTINGS } from './durable-timeout.constants.js';
import { durableTimeoutMessages } from './durable-timeout.messages.js';
import type { DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';
import { TimeoutReadinessWatcher } from './timeout-readiness.watcher.js';

/**
 * Runs the engine with the application's lifecycle: starts slot pollers at bootstrap (only when
 * this application has handlers), and on shutdown stops claiming, drains running handlers for up
 * to `drainMs` and releases the rest to other instances.
 *
 * Why both shutdown hooks: the drain happens in `beforeApplicationShutdown`, while the HTTP server
 * and the other providers are still up so running handlers can finish their work. The engine's
 * `stop` also closes the connections it opened (never one the user passed in), so
 * `onApplicationShutdown` only has to cover an application whose earlier hook did not run or failed.
 * The drain is logged when it starts and when it ends (handlers finished, timeouts handed back,
 * time taken), never with payloads.
 */
@Injectable()
export class TimeoutOrchestrator implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(DURABLE_TIMEOUT_LOGGER_CONTEXT);
  private stopping: Promise<void> | undefined;

  constructor(
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
    @Inject(DURABLE_TIMEOUT_SETTINGS) private readonly settings: DurableTimeoutSettings,
    private readonly registry: TimeoutHandlerRegistry,
    private readonly readiness: TimeoutReadinessWatcher,
  ) {}

  /** Starts the slot pollers of the handled topics. */
  async onApplicationBootstrap(): Promise<void> {
    try {
      if (this.registry.size === 0) this.logger.log(durableTimeoutMessages.noHandlers());
      else if (this.settings.startPollers) {
        await this.engine.start();
        this.logger.log(durableTimeoutMessages.pollersStarted(this.registry.topics));
      }
      this.readiness.markReady();
    } catch (error) {
      this.readiness.markFailed(error);
      throw error;
    }
  }

  /** Stops claiming, drains up to `drainMs`, releases what is left, closes the engine's own connections. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop(this.settings.drainMs);
  }

  /** Makes sure the engine is stopped and its connections closed. */
  async onApplicationShutdown(): Promise<void> {
    await this.stop(0);
  }

  private stop(drainMs: number): Promise<void> {
    this.stopping ??= this.drain(drainMs);
    return this.stopping;
  }

  private async drain(drainMs: number): Promise<void> {
    this.logger.log(durableTimeoutMessages.drainStarted(drainMs));
    const off = this.engine.on('stopped', (summary) => this.logger.log(durableTimeoutMessages.drained(summary)));
    try {
      await this.engine.stop({ drainMs });
    } finally {
      off();
    }
  }
}
