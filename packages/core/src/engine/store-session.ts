import { RedisTimeoutStore } from '../store/redis-timeout-store.js';
import type { StoreTopic, TimeoutStore } from '../store/timeout-store.js';
import type { ResolvedOptions } from '../validation/options.js';
import { settledWithin } from '../support/settled-within.js';

/**
 * The engine's store over its life: the one given (`store` option) or a Redis store it opened
 * itself; its one-time init (the topics and their slot counts registered, then `afterInit`), done
 * lazily by the first call that needs it; after a failed start, a fresh Redis store in place of
 * the failed one; the close at shutdown, of a store it opened only.
 */
export class StoreSession {
  private current: TimeoutStore;
  private initPromise: Promise<void> | undefined;
  private done = false;
  /** True when the engine opened the store (and so closes it); false for a `store` option. */
  readonly owned: boolean;

  constructor(
    private readonly options: ResolvedOptions,
    /** Runs once the store knows the topics, before the init counts as done (the layouts' own init). */
    private readonly afterInit: () => Promise<void>,
  ) {
    this.owned = options.store === undefined;
    this.current = options.store ?? this.open();
  }

  /** The store in use now (replaced after a failed start). */
  get store(): TimeoutStore {
    return this.current;
  }

  /** Whether the init has completed (then `init()` costs nothing). */
  get initialised(): boolean {
    return this.done;
  }

  /** Registers the topics with the store, once; a failed init is tried again by the next call. */
  init(): Promise<void> {
    if (this.done) return Promise.resolve();
    const topics: StoreTopic[] = [...this.options.topics].map(([name, topic]) => ({ name, slots: topic.slots }));
    this.initPromise ??= this.current
      .init(topics)
      .then(() => this.afterInit())
      .then(
        () => {
          this.done = true;
        },
        (error: unknown) => {
          this.initPromise = undefined;
          throw error;
        },
      );
    return this.initPromise;
  }

  /**
   * After a failed start: closes the store this instance opened, whose connection would otherwise
   * keep reconnecting (and keep the process alive) for ever, and puts a new one in its place. The
   * new one connects on its first call, so calling `start` again (or `schedule`) works.
   */
  async replaceFailed(onCloseError: (error: unknown) => void): Promise<void> {
    if (!this.owned) return;
    const failed = this.current as RedisTimeoutStore;
    this.current = this.open();
    this.done = false;
    this.initPromise = undefined;
    await failed.close(0).catch(onCloseError);
  }

  /**
   * Closes what the engine opened, within `withinMs`: the store if it opened it (its wake-up
   * subscriptions close with it), otherwise only its subscriptions on the store it was given.
   */
  async close(withinMs: number, unsubscribers: readonly (() => Promise<void>)[], onCloseError: (error: unknown) => void): Promise<void> {
    if (this.owned) await (this.current as RedisTimeoutStore).close(withinMs).catch(onCloseError);
    else await settledWithin(Promise.all(unsubscribers.map((unsubscribe) => unsubscribe())), withinMs);
  }

  private open(): RedisTimeoutStore {
    return new RedisTimeoutStore({
      connection: this.options.connection,
      prefix: this.options.prefix,
      commandTimeoutMs: this.options.commandTimeoutMs,
      logger: this.options.logger,
      ...(this.options.durability ? { durability: this.options.durability } : {}),
    });
  }
}
