import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { portTaken, RedisCluster, RedisSentinelGroup, RedisServer } from '@durable-timeout/redis-testing';

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

describe('RedisCluster with replicas', () => {
  it('promotes a replica when a master is killed, and the data written before is still there', async () => {
    const cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
    try {
      expect(cluster.nodes).toHaveLength(6);
      expect(await cluster.masters()).toHaveLength(3);
      expect(await cluster.replicas()).toHaveLength(3);
      const client = cluster.client();
      await client.set('{failover}:k', 'kept');
      const master = await cluster.masterOf('{failover}:k');
      // WAIT: the replica has the write before its master dies.
      await master.client().wait(1, 2_000);
      await master.kill();
      await cluster.waitForFailover();
      const promoted = await cluster.masterOf('{failover}:k');
      expect(promoted.port).not.toBe(master.port);
      expect(await promoted.client().get('{failover}:k')).toBe('kept');
    } finally {
      await cluster.stop();
    }
  });
});

describe('RedisSentinelGroup', () => {
  it('promotes a replica when the primary is killed, and clients given the sentinels follow it', async () => {
    const group = await RedisSentinelGroup.start({ replicas: 1, sentinels: 3, downAfterMs: 500, failoverTimeoutMs: 2_000 });
    try {
      const first = await group.primary();
      expect(group.servers[0]!.port).toBe(first.port);
      const client = group.client();
      await client.set('k', 'kept');
      expect(await client.wait(1, 2_000)).toBe(1);
      await first.kill();
      await group.waitForPromotion(first.port);
      const promoted = await group.primary();
      expect(promoted.port).not.toBe(first.port);
      expect(await client.get('k')).toBe('kept');
      await client.set('k2', 'after');
      expect(await promoted.client().get('k2')).toBe('after');
    } finally {
      await group.stop();
    }
  });
});
