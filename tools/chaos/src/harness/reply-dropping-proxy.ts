import { createConnection, type Server, type Socket } from 'node:net';
import { parseCommand, respValueEnd } from './resp.js';
import { listenOnLoopback } from './loopback-server.js';

/** Chooses the commands whose reply the proxy drops, from their arguments (`args[0]` is the command name). */
export type CommandMatcher = (args: readonly string[]) => boolean;

/** Chooses, among the replies of matching commands, those to drop (the raw RESP bytes of one reply). */
export type ReplyMatcher = (reply: Buffer) => boolean;

/**
 * A TCP proxy in front of a Redis server that can lose replies: it forwards every command, lets
 * Redis run it, and when the reply of a chosen command comes back it cuts the client connection
 * instead of delivering it. That is what a network fault after a script ran looks like to the
 * client: the work is done in Redis, the client never learns it.
 */
export class ReplyDroppingProxy {
  private armed = 0;
  private matcher: CommandMatcher = () => false;
  private replyMatcher: ReplyMatcher = () => true;
  private readonly sockets = new Set<Socket>();
  private droppedReplies = 0;

  private constructor(
    private readonly server: Server,
    /** Port the proxy listens on (loopback). */
    readonly port: number,
  ) {}

  /** Starts a proxy on a free loopback port in front of `target`. */
  static async start(target: { host: string; port: number }): Promise<ReplyDroppingProxy> {
    let proxy: ReplyDroppingProxy | undefined;
    const { server, port } = await listenOnLoopback('reply-dropping', (client) => proxy?.pipe(client, target));
    proxy = new ReplyDroppingProxy(server, port);
    return proxy;
  }

  /** `redis://` URL of the proxy. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Replies dropped so far. */
  get dropped(): number {
    return this.droppedReplies;
  }

  /**
   * Drops the reply of each of the next `count` commands that `matcher` accepts and whose reply
   * `replyMatcher` accepts (default: any reply).
   */
  dropNextReplies(count: number, matcher: CommandMatcher, replyMatcher: ReplyMatcher = () => true): void {
    this.armed = count;
    this.matcher = matcher;
    this.replyMatcher = replyMatcher;
  }

  /** Commands still to be hit by the last `dropNextReplies`. */
  get pendingDrops(): number {
    return this.armed;
  }

  /** Closes the listener and every connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pipe(client: Socket, target: { host: string; port: number }): void {
    const upstream = createConnection(target);
    this.sockets.add(client);
    this.sockets.add(upstream);
    // One flag per command in flight, in order: Redis answers the commands of a connection in order.
    const doomed: boolean[] = [];
    let requests = Buffer.alloc(0);
    let replies = Buffer.alloc(0);
    let cut = false;
    const cutBoth = () => {
      cut = true;
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      requests = Buffer.concat([requests, chunk]);
      let offset = 0;
      for (;;) {
        const command = parseCommand(requests, offset);
        if (!command) break;
        doomed.push(this.armed > 0 && this.matcher(command.args));
        offset = command.end;
      }
      requests = requests.subarray(offset);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cut) return;
      replies = Buffer.concat([replies, chunk]);
      let offset = 0;
      for (;;) {
        const end = respValueEnd(replies, offset);
        if (end < 0) break;
        if (doomed.shift() === true && this.armed > 0 && this.replyMatcher(replies.subarray(offset, end))) {
          this.armed -= 1;
          client.write(replies.subarray(0, offset));
          this.droppedReplies += 1;
          cutBoth();
          return;
        }
        offset = end;
      }
      client.write(replies.subarray(0, offset));
      replies = replies.subarray(offset);
    });
    client.on('error', cutBoth);
    upstream.on('error', cutBoth);
    client.on('close', cutBoth);
    upstream.on('close', cutBoth);
  }
}
