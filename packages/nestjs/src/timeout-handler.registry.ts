import { Injectable } from '@nestjs/common';
import type { HandlerLocation } from './durable-timeout.messages.js';

/** One discovered `@OnTimeout` handler. */
export interface DiscoveredTimeoutHandler extends HandlerLocation {
  topic: string;
}

/** The handlers the explorer found in this application, by topic. */
@Injectable()
export class TimeoutHandlerRegistry {
  private readonly handlers = new Map<string, DiscoveredTimeoutHandler>();

  /** Records a handler; returns the one already recorded for its topic, if any. */
  add(handler: DiscoveredTimeoutHandler): DiscoveredTimeoutHandler | undefined {
    const existing = this.handlers.get(handler.topic);
    if (existing) return existing;
    this.handlers.set(handler.topic, handler);
    return undefined;
  }

  /** The handler of a topic, if this application has one. */
  get(topic: string): DiscoveredTimeoutHandler | undefined {
    return this.handlers.get(topic);
  }

  /** Topics that have a handler in this application. */
  get topics(): string[] {
    return [...this.handlers.keys()];
  }

  /** Number of handled topics. */
  get size(): number {
    return this.handlers.size;
  }
}
