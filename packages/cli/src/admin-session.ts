import { Redis } from 'ioredis';
import { DurableTimeouts } from '@durable-timeout/core';
import { cliMessages } from './cli.messages.js';
import { RedisUnreachableError } from './errors/redis-unreachable.error.js';
import { UsageError } from './errors/usage.error.js';
import { parseTopicRegistry, topicRegistryKey, type TopicRegistry } from './topic-registry.js';

/** How a session reaches Redis and reads topics. */
export interface SessionSettings {
  /** `redis://` or `rediss://` URL, with user and password for an ACL user. */
  url: string;
  /** Key prefix of the engine (`prefix` option, default `dt`). */
  prefix: string;
  /** Slot count for a topic the registry does not hold (`--slots`). */
  slots: number | undefined;
  /** How long each Redis call may take. */
  timeoutMs: number;
}

/**
 * One connection to Redis for one command: reads the topic registry and opens an engine on the
 * topics the command names. The engine is only a client here: it never starts pollers, so the
 * command fires nothing. Close it when done.
 */
export class AdminSession {
  private registryRead: Promise<TopicRegistry> | undefined;
  private engine: DurableTimeouts | undefined;

  private constructor(
    private readonly client: Redis,
    readonly settings: SessionSettings,
  ) {}

  /** Connects (within `timeoutMs`); a refused login or an unreachable server is a `RedisUnreachableError`. */
  static async open(settings: SessionSettings): Promise<AdminSession> {
    const client = new Redis(settings.url, {
      lazyConnect: true,
      connectTimeout: settings.timeoutMs,
      // A command line fails fast: no reconnect loop, no queue of commands while disconnected.
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    // Failures reach the caller through the calls that hit them; this keeps ioredis from printing them too.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw new RedisUnreachableError(cliMessages.cannotConnect(redactedUrl(settings.url), settings.timeoutMs, describe(error)), { cause: error });
    }
    return new AdminSession(client, settings);
  }

  /** The registry key of this prefix. */
  get registryKey(): string {
    return topicRegistryKey(this.settings.prefix);
  }

  /** The topic registry (read once per session); empty when there is none. */
  registry(): Promise<TopicRegistry> {
    this.registryRead ??= this.client.hgetall(this.registryKey).then(parseTopicRegistry);
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
      connection: this.client,
      prefix: this.settings.prefix,
      topics: config,
      commandTimeoutMs: this.settings.timeoutMs,
      logger: null,
    });
    return this.engine;
  }

  /** Stops the engine and closes the connection. */
  async close(): Promise<void> {
    await this.engine?.stop({ drainMs: 0 }).catch(() => undefined);
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
