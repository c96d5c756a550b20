import { DurableTimeouts, RedisTimeoutStore, RedisUnavailableError } from '@durable-timeout/core';
import { cliMessages } from './cli.messages.js';
import type { ResolvedConnection } from './connection-flags.js';
import { RedisUnreachableError } from './errors/redis-unreachable.error.js';
import { UsageError } from './errors/usage.error.js';
import { parseTopicRegistry, topicRegistryKey, type TopicRegistry } from './topic-registry.js';

/** How a session reaches Redis and reads topics. */
export interface SessionSettings {
  /** Where Redis is: any connection URL the engine takes (one server, Cluster, Sentinel). */
  connection: ResolvedConnection;
  /** Key prefix of the engine (`prefix` option, default `dt`). */
  prefix: string;
  /** Slot count for a topic the registry does not hold (`--slots`). */
  slots: number | undefined;
  /** How long each Redis call may take. */
  timeoutMs: number;
}

/** Replies of a refused login: a wrong password, an unknown or disabled user. */
const LOGIN_REFUSED = /\b(WRONGPASS|NOAUTH|invalid username-password pair|user is disabled)\b/i;

/**
 * One connection to Redis for one command: reads the topic registry and opens an engine on the
 * topics the command names. The connection is the engine's own (a `RedisTimeoutStore` opened from
 * the URL), so the command line reaches one server, a Cluster or Sentinel as the engine does. The
 * engine is only a client here: it never starts pollers, so the command fires nothing. Close it
 * when done.
 */
export class AdminSession {
  private registryRead: Promise<TopicRegistry> | undefined;
  private engine: DurableTimeouts | undefined;

  private constructor(
    private readonly store: RedisTimeoutStore,
    readonly settings: SessionSettings,
  ) {}

  /**
   * Connects (within `timeoutMs`) and checks the connection as an engine does at start (a one-server
   * URL to a Cluster node is refused there); a refused login or an unreachable server is a
   * `RedisUnreachableError`.
   */
  static async open(settings: SessionSettings): Promise<AdminSession> {
    const store = new RedisTimeoutStore({ connection: settings.connection.url, prefix: settings.prefix, commandTimeoutMs: settings.timeoutMs });
    try {
      await store.init();
    } catch (error) {
      await store.close(0);
      if (!(error instanceof RedisUnavailableError)) throw error;
      const cause = error.message;
      if (LOGIN_REFUSED.test(cause)) throw new RedisUnreachableError(cliMessages.loginRefused(settings.connection.shown, reasonOf(cause)), { cause: error });
      throw new RedisUnreachableError(cliMessages.cannotConnect(settings.connection.shown, settings.timeoutMs, reasonOf(cause)), { cause: error });
    }
    return new AdminSession(store, settings);
  }

  /** The registry key of this prefix. */
  get registryKey(): string {
    return topicRegistryKey(this.settings.prefix);
  }

  /** The topic registry (read once per session); empty when there is none. */
  registry(): Promise<TopicRegistry> {
    const read = (): Promise<Record<string, string>> => this.store.connection.hgetall(this.registryKey);
    this.registryRead ??= withDeadline(read(), this.settings.timeoutMs, 'read the topic registry').then(parseTopicRegistry);
    return this.registryRead;
  }

  /** The slot count of a topic: from the registry, else from `--slots`; a `UsageError` when neither has it. */
  async slotsOf(topic: string): Promise<number> {
    const registry = await this.registry();
    const registered = registry.topics.get(topic);
    const given = this.settings.slots;
    if (registered !== undefined) {
      // During a migration either count is right (the engine looks in the slots of both).
      const either = given === registered || given === registry.migrating.get(topic);
      if (given !== undefined && !either) throw new UsageError(cliMessages.slotsDisagree(topic, given, registered, this.registryKey));
      return registered;
    }
    if (given !== undefined) return given;
    const stored = registry.invalid.get(topic);
    if (stored !== undefined) throw new UsageError(cliMessages.badRegistryEntry(topic, stored, this.registryKey));
    throw new UsageError(cliMessages.topicNotRegistered(topic, this.registryKey, [...registry.topics.keys()]));
  }

  /** An engine (client only) on `topics`, each with its slot count. One per session. */
  async engineFor(topics: readonly string[]): Promise<DurableTimeouts> {
    const config: Record<string, { slots: number }> = {};
    for (const topic of topics) config[topic] = { slots: await this.slotsOf(topic) };
    this.engine = new DurableTimeouts({
      store: this.store,
      topics: config,
      commandTimeoutMs: this.settings.timeoutMs,
      logger: null,
    });
    return this.engine;
  }

  /** Stops the engine and closes the connection. */
  async close(): Promise<void> {
    await this.engine?.stop({ drainMs: 0 }).catch(() => undefined);
    await this.store.close();
  }
}

/** The part of a store error after "within N ms", which says what went wrong. */
function reasonOf(message: string): string {
  return (/\((.*)\)\.\s/.exec(message)?.[1] ?? message).replace(/^connection \w+: /, '').replace(/\.$/, '');
}

/** `promise`, or a `RedisUnavailableError` after `timeoutMs`. */
function withDeadline<T>(promise: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`Could not ${operation} within ${timeoutMs} ms`, operation)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
