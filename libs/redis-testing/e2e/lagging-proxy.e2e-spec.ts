import { afterEach, describe, expect, it } from '@jest/globals';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { LaggingProxy, RedisCluster, RedisSentinelGroup, waitFor } from '@durable-timeout/redis-testing';

/** A TCP server that answers `ping` with `pong` and can write to or close its latest connection. */
async function target(): Promise<{ server: Server; port: number; received: string[]; latest: () => Socket | undefined; pongAt: number[] }> {
  const received: string[] = [];
  const pongAt: number[] = [];
  let latest: Socket | undefined;
  const server = createServer((socket) => {
    latest = socket;
    socket.on('data', (chunk) => {
      received.push(chunk.toString());
      if (chunk.toString() === 'ping') {
        pongAt.push(performance.now());
        socket.write('pong');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, received, latest: () => latest, pongAt };
}

/** A client of the proxy that keeps what it got and when. */
function connect(proxy: LaggingProxy) {
  const socket = createConnection({ host: proxy.host, port: proxy.port });
  const got: { text: string; at: number }[] = [];
  let closed = false;
  let ended = false;
  socket.on('data', (chunk) => got.push({ text: chunk.toString(), at: performance.now() }));
  socket.on('end', () => (ended = true));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  return { socket, got, text: () => got.map((part) => part.text).join(''), closed: () => closed, ended: () => ended };
}

describe('LaggingProxy', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function setUp(delayMs: number) {
    const server = await target();
    const proxy = await LaggingProxy.start({ host: '127.0.0.1', port: server.port }, { delayMs });
    cleanup.push(() => new Promise<void>((resolve) => server.server.close(() => resolve())), () => proxy.close());
    const client = connect(proxy);
    cleanup.push(() => void client.socket.destroy());
    return { server, proxy, client };
  }

  it("passes the client's bytes at once and the target's no sooner than delayMs later", async () => {
    const { server, client } = await setUp(60);
    client.socket.write('ping');
    await waitFor('the target to get ping', () => server.received.includes('ping'), 2_000);
    await waitFor('pong through the proxy', () => client.text() === 'pong', 5_000);
    // setTimeout may round its wait down by up to a millisecond.
    expect(client.got[0]!.at - server.pongAt[0]!).toBeGreaterThanOrEqual(59);
  });

  it('drops what it holds on cut and closes the client without it', async () => {
    const { server, proxy, client } = await setUp(60_000);
    client.socket.write('ping');
    await waitFor('the target to get ping while its replies are held for a minute', () => server.received.includes('ping'), 2_000);
    server.latest()!.write('abcdef');
    await waitFor('10 bytes held', () => proxy.heldBytes === 10, 2_000);
    expect(proxy.cut()).toBe(10);
    await waitFor('the client link closed', () => client.closed(), 2_000);
    expect(client.text()).toBe('');
    expect(proxy.dropped).toBe(10);
    expect(proxy.connections).toBe(0);
  });

  it('passes on what it held, then the end, when the target closes cleanly', async () => {
    const { server, client } = await setUp(50);
    client.socket.write('ping');
    await waitFor('the target to get ping', () => server.received.includes('ping'), 2_000);
    server.latest()!.end('bye');
    await waitFor('the end through the proxy', () => client.ended(), 5_000);
    expect(client.text()).toBe('pongbye');
  });
});

describe('RedisSentinelGroup with lag', () => {
  it('keeps the chosen replica behind, loses what it held at killPrimary, and still promotes that replica', async () => {
    const group = await RedisSentinelGroup.start({ replicas: 2, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000, lag: { delayMs: 500, replicas: [0] } });
    try {
      const [first, lagging, inSync] = group.servers;
      // Sentinels and clients reach the primary through the proxy: the group still names the server.
      expect((await group.primary()).port).toBe(first!.port);
      const client = group.client();
      await client.set('a', '1');
      // The reply came through the proxy undelayed; the lagging replica gets the write 500 ms later.
      expect(await lagging!.client().get('a')).toBeNull();
      await waitFor('the in-sync replica to have a', async () => (await inSync!.client().get('a')) === '1', 2_000);
      await waitFor('the lagging replica to have a', async () => (await lagging!.client().get('a')) === '1', 5_000);
      await client.set('b', '2');
      const { server, droppedBytes } = await group.killPrimary();
      expect(server.port).toBe(first!.port);
      expect(droppedBytes).toBeGreaterThan(0);
      await group.waitForPromotion(first!.port);
      // replica-priority puts the lagging replica first: promoted without the acknowledged write b.
      expect((await group.primary()).port).toBe(lagging!.port);
      expect(await lagging!.client().get('a')).toBe('1');
      expect(await lagging!.client().get('b')).toBeNull();
    } finally {
      await group.stop();
    }
  });
});

describe('RedisCluster with lag', () => {
  it("keeps the first master's replica behind, loses what the proxy held at killMaster, and promotes that replica", async () => {
    const cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000, lag: { delayMs: 500 } });
    try {
      const first = cluster.nodes[0]!;
      const [proxy] = cluster.proxies;
      // A key of the first master's slots; the cluster still names the server, not its proxy.
      let tag = 0;
      while ((await cluster.masterOf(`{t${tag}}`)).port !== first.port) tag++;
      const [a, b] = [`{t${tag}}a`, `{t${tag}}b`];
      const client = cluster.client();
      await client.set(a, '1');
      // The reply came through the proxy undelayed; the replica (linked through it) gets a 500 ms later.
      const replicas = await cluster.replicas();
      const infos = await Promise.all(replicas.map(async (node) => ({ node, info: await node.client().info('replication') })));
      const lagging = infos.find(({ info }) => info.includes(`master_port:${proxy!.port}`))!.node;
      const reader = lagging.client();
      await reader.call('READONLY');
      expect(await reader.get(a)).toBeNull();
      await waitFor('the lagging replica to have a', async () => (await reader.get(a)) === '1', 5_000);
      await client.set(b, '2');
      const { droppedBytes } = await cluster.killMaster(first);
      expect(droppedBytes).toBeGreaterThan(0);
      await cluster.waitForFailover();
      // The only replica of the killed master is promoted without the acknowledged write b.
      expect((await cluster.masterOf(a)).port).toBe(lagging.port);
      expect(await lagging.client().get(a)).toBe('1');
      expect(await lagging.client().get(b)).toBeNull();
    } finally {
      await cluster.stop();
    }
  });
});
