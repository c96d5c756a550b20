import type { TimeoutLogger } from '../types.js';
import type { RedisClient } from './redis-connection.js';
import type { SlotRef } from './timeout-store.js';
import type { TimeoutKeys } from './timeout-keys.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { WakeSubscriber } from './wake-subscriber.js';

/**
 * The Redis store's wake-up subscriptions: one `WakeSubscriber` connection per `subscribe` call,
 * and what its messages mean. A schedule script publishes `<slot>:<dueAt>` on the topic's channel
 * when it lands ahead of the slot's earliest due time; a slot migration publishes `layout`.
 */
export class RedisWakeUps {
  private readonly subscribers = new Set<WakeSubscriber>();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: TimeoutKeys,
    private readonly closeTimeoutMs: number,
    private readonly logger: TimeoutLogger | null,
  ) {}

  /** Subscribes to the channels of `topics` (see `TimeoutStore.subscribe`); resolves once subscribed, with the unsubscribe. */
  async subscribe(
    topics: readonly string[],
    onWake: (slot: SlotRef, dueAt: number) => void,
    onResubscribed: () => void,
    onLayout?: (topic: string) => void,
  ): Promise<() => Promise<void>> {
    const subscriber = new WakeSubscriber(this.client, {
      channels: topics.map((topic) => this.keys.wakeChannel(topic)),
      closeTimeoutMs: this.closeTimeoutMs,
      // A throwing callback must not break the connection's reply parsing: report it and go on.
      onResubscribed: () => this.guard('onResubscribed', onResubscribed),
      onMessage: (channel, message) => {
        const topic = this.keys.topicOfChannel(channel);
        if (topic !== undefined && message === 'layout') {
          if (onLayout) this.guard('onLayout', () => onLayout(topic));
          return;
        }
        const colon = message.indexOf(':');
        if (topic === undefined || colon < 0) return;
        const slot = Number(message.slice(0, colon));
        const dueAt = Number(message.slice(colon + 1));
        if (Number.isInteger(slot) && slot >= 0 && Number.isFinite(dueAt)) this.guard('onWake', () => onWake({ topic, slot }, dueAt));
      },
    });
    // Known to `close` while it starts, so a close meanwhile ends it too.
    this.subscribers.add(subscriber);
    try {
      await subscriber.start();
    } catch (error) {
      this.subscribers.delete(subscriber);
      throw error;
    }
    return async () => {
      if (!this.subscribers.delete(subscriber)) return;
      await subscriber.close();
    };
  }

  /** Closes every subscription, each with a clean QUIT when Redis answers within `quitWithinMs`. */
  async close(quitWithinMs: number): Promise<void> {
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    await Promise.all(subscribers.map((subscriber) => subscriber.close(quitWithinMs)));
  }

  private guard(callback: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.logger?.error(redisStoreMessages.callbackFailed(callback, error instanceof Error ? error.message : String(error)));
    }
  }
}
