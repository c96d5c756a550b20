import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DuplicateHandlerError, DurableTimeouts, SCHEDULES_TOPIC, UnknownTopicError, type ScheduleOccurrence } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_LOGGER_CONTEXT, DURABLE_TIMEOUT_SETTINGS, ON_SCHEDULE_METADATA } from './durable-timeout.constants.js';
import { durableTimeoutMessages, type HandlerLocation } from './durable-timeout.messages.js';
import type { OnScheduleMetadata } from './decorators/on-schedule.decorator.js';
import type { DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';

/**
 * Collects the `@OnSchedule` methods of every singleton provider and controller: registers each as
 * its schedule's handler (so the orchestrator starts the pollers of the `schedules` topic) and
 * upserts every declared schedule, at `onModuleInit`. Fails fast on a schedule with two handlers,
 * on a missing `schedules` topic, and on invalid schedule options.
 */
@Injectable()
export class ScheduleExplorer implements OnModuleInit {
  private readonly logger = new Logger(DURABLE_TIMEOUT_LOGGER_CONTEXT);
  private readonly declared = new Map<string, OnScheduleMetadata & { location: HandlerLocation }>();

  constructor(
    private readonly discoveryService: DiscoveryService,
    private readonly metadataScanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registry: TimeoutHandlerRegistry,
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
    @Inject(DURABLE_TIMEOUT_SETTINGS) private readonly settings: DurableTimeoutSettings,
  ) {}

  /**
   * Discovers and registers the schedule handlers, checks every declared schedule's options, then
   * upserts them (unchanged when another instance declared the same already): all before the
   * pollers start at bootstrap, so a bad declaration fails the boot with nothing started.
   */
  async onModuleInit(): Promise<void> {
    const wrappers = [...this.discoveryService.getProviders(), ...this.discoveryService.getControllers()];
    for (const wrapper of wrappers) {
      if (!wrapper.isDependencyTreeStatic()) continue;
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      for (const methodName of this.metadataScanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[methodName];
        if (typeof method !== 'function') continue;
        const metadata = this.reflector.get<OnScheduleMetadata | undefined>(ON_SCHEDULE_METADATA, method);
        if (metadata === undefined) continue;
        const className = (instance as { constructor?: { name?: string } }).constructor?.name || String(wrapper.name);
        this.bind(metadata, { className, methodName }, instance as Record<string, (occurrence: ScheduleOccurrence) => unknown>);
      }
    }
    if (this.declared.size === 0) return;
    for (const { name, options } of this.declared.values()) this.engine.schedules.validate(name, options);
    for (const { name, options } of this.declared.values()) await this.engine.schedules.upsert(name, options);
    this.logger.log(durableTimeoutMessages.schedulesUpserted([...this.declared.keys()]));
  }

  private bind(metadata: OnScheduleMetadata, location: HandlerLocation, instance: Record<string, (occurrence: ScheduleOccurrence) => unknown>): void {
    const { name } = metadata;
    if (!this.settings.topics.includes(SCHEDULES_TOPIC)) {
      throw new UnknownTopicError(SCHEDULES_TOPIC, this.settings.topics, { message: durableTimeoutMessages.schedulesTopicMissing(name, location, this.settings.topics) });
    }
    const existing = this.declared.get(name);
    if (existing) throw new DuplicateHandlerError(durableTimeoutMessages.duplicateSchedule(name, existing.location, location));
    this.declared.set(name, { ...metadata, location });
    // The orchestrator starts the pollers of every topic with a handler in this application.
    if (!this.registry.get(SCHEDULES_TOPIC)) this.registry.add({ topic: SCHEDULES_TOPIC, ...location });
    const { methodName } = location;
    this.engine.schedules.handle(name, (occurrence) => instance[methodName]!(occurrence));
  }
}
