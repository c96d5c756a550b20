import type { Redis, RedisOptions } from 'ioredis';
import { redisStoreMessages } from './redis-store.messages.js';
import { RedisUnavailableError } from './redis-unavailable.error.js';
import { CLOSE_GRACE_MS, closeConnection, isCluster, reconnectDelay, type RedisClient } from './redis-connection.js';

/**
 * Reconnect attempts of one subscriber connection before it is replaced by a new one (to the next
 * known node of a cluster, or the same server again). About 0.7 s of retries.
 */
const RECONNECTS_BEFORE_ROTATION = 3;

/** Options of `WakeSubscriber`. */
export interface WakeSubscriberOptions {
  /** Channels to subscribe to. */
  channels: readonly string[];
  /** Called for every message on one of the channels. */
  onMessage: (channel: string, message: string) => void;
  /** Called each time the subscription is back after a loss (messages may have been missed meanwhile). */
  onResubscribed: () => void;
  /** How long `close` waits for a clean QUIT. */
  closeTimeoutMs: number;
}

/**
 * The pub/sub connection of the wake-ups, kept alive without limit and able to say when it is back.
 *
 * ioredis re-subscribes by itself after a reconnect, but on a `Cluster` it does so silently on an
 * internal connection, so the store could not tell the engine that wake-ups may have been missed.
 * This class owns a plain connection instead: to a copy of the server's options, or to one master
 * of the cluster (a PUBLISH reaches every node of a cluster, so any node hears every topic). After
 * a few failed reconnects it replaces the connection, moving to the next known node of a cluster.
 */
export class WakeSubscriber {
  private connection: Redis | undefined;
  private rotations = 0;
  private closed = false;
  /** Cluster nodes seen last, used when the cluster's own pool is empty (every node down). */
  private knownNodes: Redis[] = [];

  constructor(
    private readonly client: RedisClient,
    private readonly options: WakeSubscriberOptions,
  ) {}

  /** Opens the first connection and subscribes; rejects (and closes) when that fails. */
  async start(): Promise<void> {
    const connection = this.open();
    try {
      if (this.options.channels.length > 0) await connection.subscribe(...this.options.channels);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Closes the connection, with a clean QUIT when Redis answers within `timeoutMs` (default `closeTimeoutMs`). Idempotent. */
  async close(timeoutMs = this.options.closeTimeoutMs): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const connection = this.connection;
    this.connection = undefined;
    if (connection) await closeConnection(connection, timeoutMs);
  }

  private open(): Redis {
    const connection = this.nextConnection();
    this.connection = connection;
    let readyBefore = false;
    connection.on('error', () => undefined);
    connection.on('message', (channel: string, message: string) => {
      if (this.connection === connection) this.options.onMessage(channel, message);
    });
    connection.on('ready', () => {
      if (!readyBefore) {
        readyBefore = true;
        return;
      }
      // ioredis re-sent SUBSCRIBE on reconnect; subscribing again (idempotent) gives a reply to
      // wait for, so the engine's catch-up sweep starts only once wake-ups flow again.
      this.resubscribe(connection);
    });
    connection.once('end', () => {
      if (this.closed || this.connection !== connection) return;
      this.replace();
    });
    return connection;
  }

  /** Replaces a connection that gave up reconnecting; a new one starts with no subscription. */
  private replace(): void {
    if (this.closed) return;
    this.rotations += 1;
    let next: Redis;
    try {
      next = this.open();
    } catch {
      // No node to connect to (cannot happen once started, as nodes are remembered): try again later.
      setTimeout(() => this.replace(), reconnectDelay(this.rotations)).unref();
      return;
    }
    this.resubscribe(next);
  }

  private resubscribe(connection: Redis): void {
    if (this.options.channels.length === 0) return;
    connection.subscribe(...this.options.channels).then(
      () => {
        if (!this.closed && this.connection === connection) this.options.onResubscribed();
      },
      () => undefined,
    );
  }

  /** A new, not yet subscribed connection: to the server, or to the next node of the cluster. */
  private nextConnection(): Redis {
    const override: RedisOptions = {
      lazyConnect: false,
      enableAutoPipelining: false,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      disconnectTimeout: CLOSE_GRACE_MS,
      retryStrategy: (attempt: number) => (attempt > RECONNECTS_BEFORE_ROTATION ? null : reconnectDelay(attempt)),
    };
    if (!isCluster(this.client)) return this.client.duplicate(override);
    const masters = this.client.nodes('master');
    if (masters.length > 0) this.knownNodes = masters;
    const node = this.knownNodes[this.rotations % Math.max(1, this.knownNodes.length)];
    if (!node) throw new RedisUnavailableError(redisStoreMessages.noClusterNode(), 'subscribe');
    return node.duplicate({ ...override, readOnly: false });
  }
}
