import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { portTaken, RedisCluster, RedisServer } from '@durable-timeout/redis-testing';

describe('RedisServer', () => {
  const started: RedisServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it('recognises a start that failed because its port was taken (start then retries on another port)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const failure = await RedisServer.start({ port }).then(
        (server) => {
          started.push(server);
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(failure).toBeDefined();
      expect(portTaken(failure)).toBe(true);
      expect(portTaken(new Error('redis-server exited with code 1'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('keeps AOF data across SIGKILL and restart on the same port', async () => {
    const server = await RedisServer.start({ appendonly: true, appendfsync: 'always' });
    started.push(server);
    const before = server.client();
    await before.set('kept', 'yes');
    const firstPid = server.pid;
    await server.kill();
    expect(server.running).toBe(false);
    await server.restart();
    expect(server.pid).not.toBe(firstPid);
    const after = server.client();
    expect(await after.get('kept')).toBe('yes');
  });

  it('stops answering while paused and answers again after resume', async () => {
    const server = await RedisServer.start({ password: 'pw-secret' });
    started.push(server);
    const client = server.client({ commandTimeout: 300, maxRetriesPerRequest: 0 });
    expect(await client.ping()).toBe('PONG');
    server.pause();
    await expect(client.ping()).rejects.toThrow(/timed out/i);
    server.resume();
    expect(await server.client().ping()).toBe('PONG');
  });

  it('requires the password it was started with', async () => {
    const server = await RedisServer.start({ password: 'pw-secret' });
    started.push(server);
    const anonymous = server.client({ password: undefined, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await expect(anonymous.get('x')).rejects.toThrow(/NOAUTH|Authentication/i);
    expect(server.url).toBe(`redis://:pw-secret@127.0.0.1:${server.port}`);
  });
});

describe('RedisCluster', () => {
  it('forms a 3-master cluster that spreads hash tags over the nodes', async () => {
    const cluster = await RedisCluster.start();
    try {
      const client = cluster.client();
      for (let i = 0; i < 30; i++) await client.set(`{tag-${i}}:k`, String(i));
      const counts = await Promise.all(cluster.nodes.map((node) => node.client().dbsize()));
      expect(counts.every((count) => count > 0)).toBe(true);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    } finally {
      await cluster.stop();
    }
  });
});
