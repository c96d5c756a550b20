import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { DurableTimeouts, UnknownTopicError, type TimeoutEvent } from '@durable-timeout/core';
import { DURABLE_TIMEOUTS, DURABLE_TIMEOUT_LOGGER_CONTEXT, DURABLE_TIMEOUT_SETTINGS } from './durable-timeout.constants.js';
import { durableTimeoutMessages, type HandlerLocation } from './durable-timeout.messages.js';
import { DuplicateTimeoutHandlerError } from './errors/duplicate-timeout-handler.error.js';
import { InvalidTimeoutHandlerError } from './errors/invalid-timeout-handler.error.js';
import type { DurableTimeoutSettings } from './interfaces/durable-timeout-module-options.interface.js';
import { TimeoutHandlerRegistry } from './timeout-handler.registry.js';
import { TimeoutMetadataAccessor } from './timeout-metadata.accessor.js';

type InstanceWrapper = ReturnType<DiscoveryService['getProviders']>[number];

/**
 * Collects the `@OnTimeout` methods of every provider and controller at `onModuleInit` and binds
 * them to the engine. Fails fast on a topic with two handlers or a handler for a topic that is not
 * configured; a configured topic without a handler is fine (this app only schedules it).
 */
@Injectable()
export class TimeoutExplorer implements OnModuleInit {
  private readonly logger = new Logger(DURABLE_TIMEOUT_LOGGER_CONTEXT);

  constructor(
    private readonly discoveryService: DiscoveryService,
    private readonly metadataScanner: MetadataScanner,
    private readonly metadataAccessor: TimeoutMetadataAccessor,
    private readonly registry: TimeoutHandlerRegistry,
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
    @Inject(DURABLE_TIMEOUT_SETTINGS) private readonly settings: DurableTimeoutSettings,
  ) {}

  /** Discovers and binds the handlers. */
  onModuleInit(): void {
    const wrappers = [...this.discoveryService.getProviders(), ...this.discoveryService.getControllers()];
    for (const wrapper of wrappers) this.exploreWrapper(wrapper);
    for (const topic of this.settings.topics) {
      if (!this.registry.get(topic)) this.logger.log(durableTimeoutMessages.topicWithoutHandler(topic));
    }
  }

  private exploreWrapper(wrapper: InstanceWrapper): void {
    if (!wrapper.isDependencyTreeStatic()) {
      this.warnRequestScoped(wrapper);
      return;
    }
    const instance: unknown = wrapper.instance;
    // Providers that are not ready (factories returning primitives, unresolved) have nothing to scan.
    if (!instance || typeof instance !== 'object') return;
    const prototype = Object.getPrototypeOf(instance) as object | null;
    if (!prototype) return;
    for (const methodName of this.metadataScanner.getAllMethodNames(prototype)) {
      const method = (instance as Record<string, unknown>)[methodName];
      if (typeof method !== 'function') continue;
      const topic = this.metadataAccessor.getTopic(method);
      if (topic === undefined) continue;
      const location = { className: classNameOf(wrapper, instance), methodName };
      this.bind(validTopic(topic, location), location, instance as Record<string, (event: TimeoutEvent) => unknown>);
    }
  }

  private bind(topic: string, location: HandlerLocation, instance: Record<string, (event: TimeoutEvent) => unknown>): void {
    if (!this.settings.topics.includes(topic)) {
      throw new UnknownTopicError(topic, this.settings.topics, { message: durableTimeoutMessages.unknownTopic(topic, location, this.settings.topics) });
    }
    const existing = this.registry.add({ topic, ...location });
    if (existing) throw new DuplicateTimeoutHandlerError(topic, [existing, location]);
    const { methodName } = location;
    this.engine.handle(topic, (event) => instance[methodName]!(event));
  }

  private warnRequestScoped(wrapper: InstanceWrapper): void {
    const prototype = (wrapper.metatype as Function | null | undefined)?.prototype as object | undefined;
    if (!prototype || wrapper.inject) return;
    for (const methodName of this.metadataScanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[methodName];
      if (typeof method !== 'function' || this.metadataAccessor.getTopic(method) === undefined) continue;
      this.logger.warn(durableTimeoutMessages.requestScopedHandler({ className: classNameOf(wrapper, undefined), methodName }));
    }
  }
}

function validTopic(topic: unknown, location: HandlerLocation): string {
  if (typeof topic !== 'string' || topic.length === 0) {
    throw new InvalidTimeoutHandlerError(location);
  }
  return topic;
}

function classNameOf(wrapper: InstanceWrapper, instance: unknown): string {
  const fromInstance = (instance as { constructor?: { name?: string } } | undefined)?.constructor?.name;
  return fromInstance || (wrapper.metatype as Function | null | undefined)?.name || String(wrapper.name);
}
