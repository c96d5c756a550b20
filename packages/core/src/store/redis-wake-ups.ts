import type { TimeoutLogger } from '../types.js';
import type { RedisClient } from './redis-connection.js';
import type { SlotRef } from './timeout-store.js';
import type { TimeoutKeys } from './timeout-keys.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { WakeSubscriber } from './wake-subscriber.js';

/**
 * The Redis store's wake-up subscriptions: one `WakeSubscriber` connection per `subscribe` call,
 * and what its messages mean. A schedule script publishes `<slot>:<dueAt>` on the topic's channel
 * when it lands ahead of the slot's earliest due time; a slot migration publishes `layout`; a
 * cancel of a firing timeout publishes `cancel:<fencingToken>:<id>` (the id is the rest of the
 * message, colons included). A message of another form is ignored, so instances of a version that
 * publishes more kinds can share the channel.
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
    onCancel?: (topic: string, id: string, fencingToken: number) => void,
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
        if (topic !== undefined && message.startsWith(CANCEL_HEAD)) {
          const notice = parseCancelNotice(message);
          if (notice && onCancel) this.guard('onCancel', () => onCancel(topic, notice.id, notice.fencingToken));
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

/** How a cancel notice begins (see cancel.lua, `cancel_firing`). */
const CANCEL_HEAD = 'cancel:';

/** The delivery a `cancel:<fencingToken>:<id>` message names, or undefined when it is not well formed. */
export function parseCancelNotice(message: string): { id: string; fencingToken: number } | undefined {
  const colon = message.indexOf(':', CANCEL_HEAD.length);
  if (!message.startsWith(CANCEL_HEAD) || colon < 0) return undefined;
  const digits = message.slice(CANCEL_HEAD.length, colon);
  const fencingToken = Number(digits);
  const id = message.slice(colon + 1);
  if (!/^[0-9]{1,17}$/.test(digits) || !Number.isSafeInteger(fencingToken) || fencingToken <= 0 || id === '') return undefined;
  return { id, fencingToken };
}
