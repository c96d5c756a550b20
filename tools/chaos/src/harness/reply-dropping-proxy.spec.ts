import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ReplyDroppingProxy } from './reply-dropping-proxy.js';

/** A fake server speaking just enough RESP: answers every command with `+<NAME>-<n>`. */
async function fakeRedis(): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((socket: Socket) => {
    socket.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
        seen.push(match[1]!);
        socket.write(`+${match[1]!.toUpperCase()}-${seen.length}\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, seen };
}

describe('ReplyDroppingProxy', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('forwards the command, drops only the chosen reply by cutting the connection, and serves the next one', async () => {
    const fake = await fakeRedis();
    cleanups.push(() => new Promise<void>((resolve) => fake.server.close(() => resolve())));
    const proxy = await ReplyDroppingProxy.start({ host: '127.0.0.1', port: fake.port });
    cleanups.push(() => proxy.close());

    const first = await connectTo(proxy.port);
    cleanups.push(() => void first.socket.destroy());
    first.socket.write('*2\r\n$4\r\necho\r\n$1\r\nx\r\n');
    expect(await first.nextReply()).toBe('+ECHO-1\r\n');

    proxy.dropNextReplies(1, (args) => args[0] === 'ping');
    first.socket.write('*1\r\n$4\r\nping\r\n');
    await first.closed;
    expect(first.received).toBe('+ECHO-1\r\n');
    expect(fake.seen).toEqual(['echo', 'ping']);
    expect(proxy.dropped).toBe(1);
    expect(proxy.pendingDrops).toBe(0);

    const second = await connectTo(proxy.port);
    // A reply filter that refuses: the command matches, the reply is delivered, the drop stays armed.
    proxy.dropNextReplies(1, () => true, (reply) => reply.toString('latin1').startsWith('+NEVER'));
    cleanups.push(() => void second.socket.destroy());
    second.socket.write('*1\r\n$4\r\nping\r\n');
    expect(await second.nextReply()).toBe('+PING-3\r\n');
    expect(proxy.pendingDrops).toBe(1);
    expect(proxy.dropped).toBe(1);
  });
});

/** A raw client socket that collects what it receives. */
async function connectTo(port: number) {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const state = { socket, received: '', closed: new Promise<void>((resolve) => socket.once('close', () => resolve())) };
  let waiting: ((reply: string) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    state.received += chunk.toString('latin1');
    waiting?.(chunk.toString('latin1'));
    waiting = undefined;
  });
  return { ...state, get received() { return state.received; }, nextReply: () => new Promise<string>((resolve) => (waiting = resolve)) };
}
