import type { TimeoutLogger } from '../types.js';
import { registerScripts, type ScriptName } from '../commands/index.js';
import { closeConnection, clusterNodeError, isCluster, isReplicated, type OpenedConnection, type RedisClient } from './redis-connection.js';
import { RedisUnavailableError } from './redis-unavailable.error.js';
import { redisStoreMessages } from './redis-store.messages.js';
import { CallDeadlines } from './call-deadlines.js';
import { StoreClosedError } from './store-closed.error.js';
import { failoverReply, retryDuringFailover } from './failover.js';
import { routingError, type ScriptArg } from './redis-replies.js';
import { asError } from '../support/to-error.js';

type ScriptCall = (...args: ScriptArg[]) => Promise<unknown>;

/** Why the first opening of a connection failed. */
type FailedOpening = { timedOut: true; status: string } | { timedOut: false; cause: string };

/**
 * How long calls made before a connection the store opened was ever ready wait for it (at least
 * `commandTimeoutMs`). Opening is no command: TCP, TLS, AUTH, the ready check and, on a Cluster,
 * the slot map (a stalled node costs ioredis' `slotsRefreshTimeout`) take several round trips, and
 * a process starting on a busy machine (a rolling deployment) must not refuse its first calls.
 * A failed attempt (refused, wrong password, bad certificate) ends the wait at once.
 */
export const FIRST_CONNECT_MS = 10_000;

/**
 * How the Redis store's calls reach Redis, and what their failures become:
 * - `interactive` calls (schedule, cancel, get, stats, dead letters, ping) get a deadline of
 *   `commandTimeoutMs` and fail with `RedisUnavailableError` while Redis is down or stalled;
 * - `run` sends a Lua script, again within the budget while a failover refuses it (MOVED,
 *   READONLY, ...), and maps a failover symptom to `RedisUnavailableError` with `failover` set;
 *   worker calls use it alone and wait for the connection to come back.
 *
 * It also watches the connection the store opened (one warning per outage) and closes it.
 */
export class RedisCalls {
  /** The connection in use (given or opened). */
  readonly client: RedisClient;
  /** Whether the store opened the connection (and so closes it). */
  private readonly owned: boolean;
  /** Cluster or Sentinel: a lost node is replaced by a failover rather than an outage. */
  private readonly replicated: boolean;
  private readonly commands = new Map<ScriptName, { command: string; numberOfKeys: number | undefined }>();
  private readonly deadlines: CallDeadlines;
  private readyWait: Promise<void> | undefined;
  /** The wait of calls made before the owned connection was ever ready (see `FIRST_CONNECT_MS`). */
  private opening: Promise<FailedOpening | undefined> | undefined;
  private everReady = false;
  private outageReported = false;
  /** Last error of an owned connection while it is not ready (e.g. a TLS or AUTH failure), for error messages. */
  private lastConnectionError: string | undefined;
  private closedFlag = false;

  constructor(
    opened: OpenedConnection,
    private readonly commandTimeoutMs: number,
    logger: TimeoutLogger | null,
  ) {
    this.client = opened.client;
    this.owned = opened.owned;
    this.replicated = isReplicated(this.client);
    this.deadlines = new CallDeadlines(commandTimeoutMs);
    // Errors reach callers through the calls that hit them; the listener only keeps ioredis from
    // printing every reconnect attempt, and tells the logger once per outage.
    if (this.owned) {
      this.client.on('error', (error: Error) => {
        this.lastConnectionError = describeConnectionError(error);
        if (this.outageReported) return;
        this.outageReported = true;
        logger?.warn(redisStoreMessages.connectionLost(error.message));
      });
      this.client.on('ready', () => {
        this.everReady = true;
        this.outageReported = false;
        this.lastConnectionError = undefined;
      });
    }
    for (const script of registerScripts(this.client).values()) {
      this.commands.set(script.name, { command: script.command, numberOfKeys: script.numberOfKeys });
    }
  }

  /** True once `close` was called: every call fails with `StoreClosedError`. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Throws `StoreClosedError` once the store was closed. */
  assertOpen(): void {
    if (this.closedFlag) throw new StoreClosedError(redisStoreMessages.closed());
  }

  /** Runs the script `name`; during a failover within the call's budget (see the class). */
  async run(name: ScriptName, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    this.assertOpen();
    const { command, numberOfKeys } = this.commands.get(name)!;
    if (numberOfKeys !== undefined && keys.length !== numberOfKeys) throw new Error(`Script ${name} takes ${numberOfKeys} keys, got ${keys.length}.`);
    const call = (this.client as unknown as Record<string, ScriptCall>)[command]!.bind(this.client);
    // A `variable` script (commands/index.ts) takes its key count first.
    const head: readonly ScriptArg[] = numberOfKeys === undefined ? [keys.length, ...keys] : keys;
    // During a failover (MOVED, CLUSTERDOWN, READONLY...) the script was refused, not run: send it
    // again within the call's budget while the client learns the new topology (store/failover.ts).
    // A MOVED on a one-server connection is no failover: the server is a Cluster node (say so at once).
    const send = (): Promise<unknown> =>
      call(...head, ...args).catch((error: unknown) => {
        throw clusterNodeError(this.client, error) ?? error;
      });
    return retryDuringFailover(send, { budgetMs: this.commandTimeoutMs, recover: () => this.learnTopology() }).catch(
      (error: unknown) => {
        throw routingError(error) ?? this.asFailover(name, error) ?? error;
      },
    );
  }

  /** Runs the script `name` as the interactive call `operation`: with its deadline (see `interactive`). */
  script(operation: string, name: ScriptName, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    return this.interactive(operation, () => this.run(name, keys, args));
  }

  /**
   * Runs an interactive call with a deadline: waits (within the deadline) for a connection that is
   * not ready, so nothing sits in ioredis' offline queue, then races the reply against what is left.
   */
  async interactive<T>(operation: string, call: () => Promise<T>): Promise<T> {
    this.assertOpen();
    // Whether the call left this process: until then, a failure means it certainly did not run.
    let sent = false;
    const expired = (cause?: string) =>
      new RedisUnavailableError(redisStoreMessages.unavailable(operation, this.commandTimeoutMs, cause), operation, { mayHaveApplied: sent });
    try {
      const status = this.client.status;
      if (status !== 'ready') {
        // Not yet connected (connections open on first use): connect now rather than let the call
        // wait in ioredis' offline queue, where it would outlive its deadline and run later.
        if (status === 'wait') this.client.connect().catch(() => undefined);
        if (this.owned && !this.everReady && this.lastConnectionError === undefined) {
          const failed = await this.firstConnection();
          if (failed !== undefined) {
            const message = failed.timedOut
              ? redisStoreMessages.unavailable(operation, this.firstConnectMs, `connection ${failed.status}`)
              : redisStoreMessages.unreachable(operation, failed.cause);
            throw new RedisUnavailableError(message, operation, { mayHaveApplied: false });
          }
        } else {
          await this.waitReady(() =>
            expired(this.lastConnectionError ? `connection ${status}: ${this.lastConnectionError}` : `connection ${status}`),
          );
        }
      }
      sent = true;
      return await this.deadlines.run(call(), expired);
    } catch (error) {
      if (error instanceof RedisUnavailableError && error.operation !== operation) {
        const cause = error.cause === undefined ? 'undefined' : asError(error.cause).message;
        throw new RedisUnavailableError(redisStoreMessages.unavailable(operation, this.commandTimeoutMs, cause), operation, {
          cause: error.cause,
          failover: error.failover,
          mayHaveApplied: sent && error.mayHaveApplied,
        });
      }
      const misdirected = clusterNodeError(this.client, error);
      if (misdirected !== undefined) throw misdirected;
      if (error instanceof RedisUnavailableError || !isConnectionError(error)) throw error;
      throw new RedisUnavailableError(redisStoreMessages.unavailable(operation, this.commandTimeoutMs, (error as Error).message), operation, {
        cause: error,
        failover: this.isFailoverSymptom(error),
        mayHaveApplied: sent && failoverReply(error) === undefined,
      });
    }
  }

  /**
   * Fails every later call, and closes the connection when the store opened it (never one it was
   * given): a clean QUIT only when Redis answers within `quitWithinMs`.
   */
  async close(quitWithinMs: number): Promise<void> {
    this.closedFlag = true;
    if (this.owned) await closeConnection(this.client, quitWithinMs);
  }

  private get firstConnectMs(): number {
    return Math.max(this.commandTimeoutMs, FIRST_CONNECT_MS);
  }

  /**
   * One shared wait for the owned connection's first opening: undefined once it is ready, else why
   * it failed (an attempt failed, or `firstConnectMs` passed). Later calls see either a ready
   * connection or an outage (`waitReady`).
   */
  private firstConnection(): Promise<FailedOpening | undefined> {
    this.opening ??= new Promise<FailedOpening | undefined>((resolve) => {
      const settle = (failed?: FailedOpening) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        this.opening = undefined;
        resolve(failed);
      };
      const onReady = () => settle();
      const onError = (error: Error) => settle({ timedOut: false, cause: describeConnectionError(error) });
      const timer = setTimeout(() => settle({ timedOut: true, status: this.client.status }), this.firstConnectMs);
      timer.unref();
      this.client.once('ready', onReady);
      this.client.once('error', onError);
    });
    return this.opening;
  }

  /** One shared wait for the connection to become ready, so thousands of calls add one listener. */
  private waitReady(onTimeout: () => Error): Promise<void> {
    this.readyWait ??= new Promise<void>((resolve) => {
      this.client.once('ready', () => {
        this.readyWait = undefined;
        resolve();
      });
    });
    return this.deadlines.run(this.readyWait, onTimeout);
  }

  /**
   * Whether `error` is what a failover looks like: a refusal (MOVED, CLUSTERDOWN, READONLY, ...),
   * or, on a Cluster or Sentinel connection (where another node takes over), a lost connection.
   */
  private isFailoverSymptom(error: unknown): boolean {
    return failoverReply(error) !== undefined || (this.replicated && isConnectionError(error));
  }

  /** A worker call's failover symptom as a `RedisUnavailableError` with `failover` set (the engine reports it as a warning). */
  private asFailover(script: string, error: unknown): RedisUnavailableError | undefined {
    if (error instanceof RedisUnavailableError || !this.isFailoverSymptom(error)) return undefined;
    return new RedisUnavailableError(redisStoreMessages.unavailable(script, this.commandTimeoutMs, (error as Error).message), script, {
      cause: error,
      failover: true,
      // A refusal (MOVED, READONLY...) did not run; a connection lost with the call out may have.
      mayHaveApplied: failoverReply(error) === undefined,
    });
  }

  /** After a failover reply: a cluster client refreshes its slot map (ioredis runs one refresh at a time). */
  private learnTopology(): void {
    if (isCluster(this.client)) this.client.refreshSlotsCache();
  }
}

/**
 * A connection error's message; for a Cluster client that found no node, with the last node's own
 * error (ioredis' "Failed to refresh slots cache" alone hides e.g. a WRONGPASS).
 */
function describeConnectionError(error: Error): string {
  const lastNodeError = (error as { lastNodeError?: unknown }).lastNodeError;
  return lastNodeError instanceof Error ? `${error.message.replace(/\.$/, '')}: ${lastNodeError.message}` : error.message;
}

/**
 * Whether `error` says the connection was lost or refused. ioredis' AbortError ("Command aborted
 * due to connection close") is one: the connection closed (a reconnect after READONLY, a lost
 * server) while a pipeline it belonged to was partly answered, so the command may have run.
 */
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'AbortError' ||
    failoverReply(error) !== undefined ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Failed to refresh slots cache|None of startup nodes is available/i.test(
      error.message,
    )
  );
}
