import { createConnection, type Server, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback-server.js';

/** One client connection through the proxy. */
interface Link {
  client: Socket;
  target: Socket;
  /** The client sent SUBSCRIBE on it: a pub/sub connection. */
  subscriber: boolean;
  /** Bytes held while the link is cut, in order, with their direction. */
  held: { toTarget: boolean; chunk: Buffer }[];
}

/** A RESP array whose command name is SUBSCRIBE (any case), as clients send it. */
const SUBSCRIBE = /\r\nsubscribe\r\n/i;

/**
 * A TCP proxy on loopback in front of a Redis server that can cut the pub/sub connections alone,
 * the way a network partition cuts one path: while cut, no byte of a connection that sent
 * SUBSCRIBE passes either way (including a subscriber that connects during the cut), and neither
 * end is closed or told; every other connection flows as usual. `heal` lets the held bytes through
 * in order, as TCP delivers what it retransmits once a path is back.
 */
export class SubscriberCutProxy {
  private readonly links = new Set<Link>();
  private cutting = false;
  private stalledLinks = 0;

  private constructor(
    private readonly server: Server,
    /** Loopback port of the proxy. */
    readonly port: number,
  ) {}

  /** Starts a proxy on a free loopback port in front of `target`. */
  static async start(target: { host: string; port: number }): Promise<SubscriberCutProxy> {
    let proxy: SubscriberCutProxy | undefined;
    const { server, port } = await listenOnLoopback('subscriber-cut', (client) => proxy?.accept(client, target));
    proxy = new SubscriberCutProxy(server, port);
    return proxy;
  }

  /** Pub/sub connections open now. */
  get subscribers(): number {
    return [...this.links].filter((link) => link.subscriber).length;
  }

  /** Pub/sub connections that were cut (a subscriber that connects during a cut counts too). */
  get stalled(): number {
    return this.stalledLinks;
  }

  /** Cuts every pub/sub connection, now and until `heal`. */
  cut(): void {
    this.cutting = true;
    for (const link of this.links) if (link.subscriber) this.stalledLinks += 1;
  }

  /** Lets the held bytes through and stops cutting. */
  heal(): void {
    this.cutting = false;
    for (const link of this.links) {
      for (const { toTarget, chunk } of link.held.splice(0)) (toTarget ? link.target : link.client).write(chunk);
    }
  }

  /** Closes every connection and the proxy. */
  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.destroy();
      link.target.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    const link: Link = { client, target: createConnection(target), subscriber: false, held: [] };
    this.links.add(link);
    const pass = (toTarget: boolean) => (chunk: Buffer) => {
      if (toTarget && !link.subscriber && SUBSCRIBE.test(chunk.toString('latin1'))) {
        link.subscriber = true;
        if (this.cutting) this.stalledLinks += 1;
      }
      if (link.subscriber && this.cutting) link.held.push({ toTarget, chunk });
      else (toTarget ? link.target : link.client).write(chunk);
    };
    client.on('data', pass(true));
    link.target.on('data', pass(false));
    const end = () => {
      this.links.delete(link);
      client.destroy();
      link.target.destroy();
    };
    for (const socket of [client, link.target]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}
