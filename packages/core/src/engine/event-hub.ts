/**
 * A small typed event emitter. Unlike Node's EventEmitter, an `error` event without listeners is
 * not thrown, and a listener that throws is reported to `onListenerError` instead of breaking the
 * engine's loop that emitted it.
 */
export class EventHub<TEvents extends object> {
  private readonly listeners = new Map<keyof TEvents, ((data: never) => void)[]>();

  constructor(private readonly onListenerError: (event: keyof TEvents, error: unknown) => void) {}

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof TEvents>(event: K, listener: (data: TEvents[K]) => void): () => void {
    // Copy on write: emit iterates the array it read, so (un)subscribing inside a listener is safe.
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener as (data: never) => void]);
    return () => {
      const current = this.listeners.get(event);
      if (!current) return;
      const next = current.filter((candidate) => candidate !== listener);
      if (next.length > 0) this.listeners.set(event, next);
      else this.listeners.delete(event);
    };
  }

  /** True when `event` has listeners: callers skip building event data nobody reads. */
  has(event: keyof TEvents): boolean {
    return this.listeners.has(event);
  }

  /** Calls every listener of `event` with `data`. */
  emit<K extends keyof TEvents>(event: K, data: TEvents[K]): void {
    const current = this.listeners.get(event);
    if (!current) return;
    for (const listener of current) {
      try {
        (listener as (data: TEvents[K]) => void)(data);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
