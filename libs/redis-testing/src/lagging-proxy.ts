import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** Options of `LaggingProxy.start`. */
export interface LaggingProxyOptions {
  /** How long bytes from the target are held before they reach the client (ms). Default 20. */
  delayMs?: number;
  /**
   * Which links lag. `'all'` (default): every link, from its first byte. `'replicas'`: only the
   * links of Redis replicas, from the moment the replica announces itself (`REPLCONF
   * listening-port`), so applications and sentinels reach the target through the proxy without
   * delay. A function: only the replicas whose announced port it accepts.
   */
  lagging?: 'all' | 'replicas' | ((replicaPort: number) => boolean);
}

/** How many bytes of a client's stream the proxy reads looking for a replica's announcement. */
const HELLO_BYTES = 4_096;

/** `REPLCONF listening-port <port>` as a replica sends it (a RESP array of bulk strings). */
const LISTENING_PORT = /REPLCONF\r\n\$\d+\r\nlistening-port\r\n\$\d+\r\n(\d+)\r\n/i;

/** One client connection and its connection to the target, with the target's bytes not yet passed on. */
class Link {
  /** Target bytes held, oldest first, each with the time it may be passed on. */
  private readonly held: { chunk: Buffer; at: number }[] = [];
  private heldBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private upstreamEnded = false;
  private closed = false;
  private lagging: boolean;
  /** The client's first bytes, while the link does not lag yet and may still turn out to be a replica's. */
  private hello: string | undefined = '';

  constructor(
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly delayMs: () => number,
    private readonly lags: LaggingProxyOptions['lagging'],
    private readonly onClosed: (link: Link) => void,
  ) {
    this.lagging = lags === undefined || lags === 'all';
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      if (!this.lagging && this.hello !== undefined) this.listen(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.lagging) this.hold(chunk);
      else if (!this.closed) client.write(chunk);
    });
    // The target closed the link cleanly: what it sent before still arrives, late, then the end.
    upstream.on('end', () => {
      this.upstreamEnded = true;
      this.flush();
    });
    client.on('end', () => upstream.end());
    for (const socket of [client, upstream]) {
      socket.on('error', () => this.cut());
      socket.on('close', () => {
        if (socket === client || !this.upstreamEnded) this.cut();
      });
    }
  }

  /** Looks for a replica's announcement in the client's first bytes; from it on, the link lags if chosen. */
  private listen(chunk: Buffer): void {
    const hello = this.hello + chunk.toString('latin1');
    const match = LISTENING_PORT.exec(hello);
    if (match) {
      const port = Number(match[1]);
      this.lagging = this.lags === 'replicas' || (typeof this.lags === 'function' && this.lags(port));
      this.hello = undefined;
    } else {
      this.hello = hello.length > HELLO_BYTES ? undefined : hello;
    }
  }

  /** Bytes from the target not yet passed on to the client. */
  get pending(): number {
    return this.heldBytes;
  }

  /** Destroys both sockets at once; the bytes still held are dropped. Returns how many. */
  cut(): number {
    if (this.closed) return 0;
    this.closed = true;
    const dropped = this.heldBytes;
    this.held.length = 0;
    this.heldBytes = 0;
    clearTimeout(this.timer);
    this.client.destroy();
    this.upstream.destroy();
    this.onClosed(this);
    return dropped;
  }

  private hold(chunk: Buffer): void {
    if (this.closed) return;
    this.held.push({ chunk, at: performance.now() + this.delayMs() });
    this.heldBytes += chunk.length;
    this.flush();
  }

  /** Passes on every held chunk whose time has come, in order, and waits for the next one. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const now = performance.now();
    while (this.held.length > 0 && this.held[0]!.at <= now) {
      const { chunk } = this.held.shift()!;
      this.heldBytes -= chunk.length;
      this.client.write(chunk);
    }
    const next = this.held[0];
    if (next) {
      this.timer = setTimeout(() => this.flush(), Math.max(0, next.at - now));
    } else if (this.upstreamEnded) {
      this.client.end();
      this.closed = true;
      this.onClosed(this);
    }
  }
}

/**
 * A TCP proxy on loopback that makes links slow in one direction: bytes from the target reach the
 * client `delayMs` later (held in a queue, order kept), bytes from the client reach the target at
 * once. Put on a replication link (the replica's `replicaof` names the proxy), it keeps a replica
 * `delayMs` behind its primary; `cut` then drops what is still held and closes every link, which
 * is what a replica loses when its primary's machine dies with that much replication in flight.
 * A clean close by the target still passes on what was held before it ends the client's link.
 * With `lagging: 'replicas'` the proxy can stand for the primary towards everyone (sentinels,
 * applications, replicas) and delay only the replication links.
 */
export class LaggingProxy {
  private readonly links = new Set<Link>();
  private droppedBytes = 0;
  private cuts = 0;

  private constructor(
    private readonly server: Server,
    /** Port the proxy listens on (loopback). */
    readonly port: number,
    /** The server the proxy forwards to. */
    readonly target: { host: string; port: number },
    /** Current delay of the target's bytes (ms); may be changed at any time, applies to bytes received after. */
    public delayMs: number,
    private readonly lagging: LaggingProxyOptions['lagging'],
  ) {}

  /** Starts a proxy on a free loopback port in front of `target`. */
  static async start(target: { host: string; port: number }, options: LaggingProxyOptions = {}): Promise<LaggingProxy> {
    const delayMs = options.delayMs ?? 20;
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error(`delayMs must be 0 or more, got ${delayMs}.`);
    let proxy: LaggingProxy | undefined;
    const server = createServer((client) => proxy?.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (typeof address !== 'object' || address === null) {
      server.close();
      throw new Error('The lagging proxy got no port from the kernel.');
    }
    proxy = new LaggingProxy(server, address.port, target, delayMs, options.lagging);
    return proxy;
  }

  /** Host the proxy listens on. */
  get host(): string {
    return '127.0.0.1';
  }

  /** Open links (client connections) right now. */
  get connections(): number {
    return this.links.size;
  }

  /** Bytes from the target held right now, over every link. */
  get heldBytes(): number {
    let total = 0;
    for (const link of this.links) total += link.pending;
    return total;
  }

  /** Bytes dropped by `cut` so far. */
  get dropped(): number {
    return this.droppedBytes;
  }

  /** How many times `cut` closed links. */
  get cutCount(): number {
    return this.cuts;
  }

  /**
   * Drops every byte held and closes every link at once; returns the bytes dropped. The proxy keeps
   * listening: a client that connects again gets a new link to the target (refused while the
   * target is down).
   */
  cut(): number {
    let dropped = 0;
    for (const link of [...this.links]) dropped += link.cut();
    this.droppedBytes += dropped;
    this.cuts += 1;
    return dropped;
  }

  /** Stops listening and cuts every link. Idempotent. */
  async close(): Promise<void> {
    this.cut();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = createConnection(this.target);
    const link = new Link(client, upstream, () => this.delayMs, this.lagging, (closed) => this.links.delete(closed));
    this.links.add(link);
  }
}
