import { Redis, type RedisOptions } from 'ioredis';

/**
 * The ioredis clients a throwaway server (or Sentinel group) made for a test, disconnected by its
 * `stop`. Errors are swallowed: faults are injected on purpose, and a test observes them through
 * its own calls.
 */
export class TestClients {
  private readonly clients = new Set<Redis>();

  /** A new client with `options`, kept until it ends or `disconnectAll`. */
  open(options: RedisOptions): Redis {
    const client = new Redis(options);
    client.on('error', () => undefined);
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
    return client;
  }

  /** Disconnects every client still open. */
  disconnectAll(): void {
    for (const client of this.clients) client.disconnect();
    this.clients.clear();
  }
}
