import type { StoreTopic, TimeoutStore } from '../store/timeout-store.js';
import type { ResolvedOptions } from '../validation/options.js';
import { settledWithin } from '../support/settled-within.js';

/** A store the engine opened itself (the Redis store): closed at shutdown within what is left of its budget. */
export interface OpenedStore extends TimeoutStore {
  /** Closes it; a clean goodbye to the server only within `withinMs` (0: at once). */
  close(withinMs?: number): Promise<void>;
}

/**
 * The engine's store over its life: the one given (`store` option) or a Redis store it opened
 * itself; its one-time init (the topics and their slot counts registered, then `afterInit`), done
 * lazily by the first call that needs it; after a failed start, a fresh Redis store in place of
 * the failed one; the close at shutdown, of a store it opened only.
 */
export class StoreSession {
  private current: TimeoutStore;
  /** The store in use when the engine opened it (then it closes it too). */
  private opened: OpenedStore | undefined;
  private initPromise: Promise<void> | undefined;
  private done = false;
  /** True when the engine opened the store (and so closes it); false for a `store` option. */
  readonly owned: boolean;

  constructor(
    private readonly options: ResolvedOptions,
    /** Opens a store when none was given, and again after a failed start (the public class opens a Redis store). */
    private readonly open: () => OpenedStore,
    /** Runs once the store knows the topics, before the init counts as done (the layouts' own init). */
    private readonly afterInit: () => Promise<void>,
  ) {
    this.owned = options.store === undefined;
    if (options.store) this.current = options.store;
    else this.current = this.opened = this.open();
  }

  /** The store in use now (replaced after a failed start). */
  get store(): TimeoutStore {
    return this.current;
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
    const failed = this.opened;
    if (!failed) return;
    this.current = this.opened = this.open();
    this.done = false;
    this.initPromise = undefined;
    await failed.close(0).catch(onCloseError);
  }

  /**
   * Closes what the engine opened, within `withinMs`: the store if it opened it (its wake-up
   * subscriptions close with it), otherwise only its subscriptions on the store it was given.
   */
  async close(withinMs: number, unsubscribers: readonly (() => Promise<void>)[], onCloseError: (error: unknown) => void): Promise<void> {
    if (this.opened) await this.opened.close(withinMs).catch(onCloseError);
    else await settledWithin(Promise.all(unsubscribers.map((unsubscribe) => unsubscribe())), withinMs);
  }
}
