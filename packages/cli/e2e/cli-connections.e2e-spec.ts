import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aclRulesFor, DurableTimeouts, type DurableTimeoutsOptions } from '@durable-timeout/core';
import { makeTestCertificates, RedisCluster, RedisSentinelGroup, RedisServer, type TestCertificates } from '@durable-timeout/redis-testing';
import { assertBuilt, cli, cliJson } from './fixtures/run-cli.js';

/**
 * The command line against a real Redis Cluster and a real Sentinel group, reached every way the
 * engine is: `--cluster`, `--sentinel --name`, their URLs in `--url` or REDIS_URL, and an ACL user
 * by `--user` and REDIS_PASSWORD. Each set-up holds timeouts an engine scheduled through the same
 * kind of connection.
 */
let cluster: RedisCluster;
let group: RedisSentinelGroup;
let tlsServer: RedisServer;
let certificates: TestCertificates;
let certificatesDir: string;
const engines: DurableTimeouts[] = [];
const prefix = `cli${randomUUID().slice(0, 8)}`;
const SLOTS = 16;

const hostList = (nodes: readonly { host: string; port: number }[]): string => nodes.map(({ host, port }) => `${host}:${port}`).join(',');

/** Schedules `count` payment timeouts an hour ahead through `connection`, as a service does. */
async function seed(connection: DurableTimeoutsOptions['connection'], count: number): Promise<void> {
  const engine = new DurableTimeouts({ connection, prefix, topics: { payment: { slots: SLOTS } }, logger: null });
  engines.push(engine as unknown as DurableTimeouts);
  for (let n = 0; n < count; n++) await engine.schedule('payment', `order-${n}`, { delayMs: 3_600_000 + n * 1_000, payload: { n } });
}

beforeAll(async () => {
  assertBuilt();
  certificatesDir = mkdtempSync(join(tmpdir(), 'dt-cli-tls-'));
  certificates = await makeTestCertificates(certificatesDir);
  const tls = { certFile: certificates.certFile, keyFile: certificates.keyFile, caFile: certificates.caFile };
  [cluster, group, tlsServer] = await Promise.all([
    RedisCluster.start(),
    RedisSentinelGroup.start({ replicas: 1, sentinels: 3 }),
    RedisServer.start({ tls, password: 'tls-secret' }),
  ]);
  await seed(`redis+cluster://${hostList(cluster.startupNodes)}`, 40);
  await seed(`redis+sentinel://${hostList(group.sentinels)}/${group.name}`, 12);
  await seed({ host: '127.0.0.1', port: tlsServer.port, password: 'tls-secret', tls: { ca: readFileSync(certificates.caFile) } }, 3);
}, 180_000);

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.stop({ drainMs: 0 })));
  await Promise.all([cluster?.stop(), group?.stop(), tlsServer?.stop()]);
  if (certificatesDir) rmSync(certificatesDir, { recursive: true, force: true });
});

interface TopicStatsJson {
  topics: { topic: string; pending: number }[];
}

describe('durable-timeout on a Redis Cluster', () => {
  it('reads, lists and cancels through --cluster, and the same through a redis+cluster:// URL', async () => {
    const flags = ['--cluster', hostList(cluster.startupNodes.slice(0, 2)), '--prefix', prefix];
    expect((await cliJson<TopicStatsJson>(['stats', ...flags])).topics).toEqual([expect.objectContaining({ topic: 'payment', pending: 40 })]);
    const pending = await cliJson<{ id: string }[]>(['pending', 'payment', '--limit', '3', ...flags]);
    expect(pending.map((entry) => entry.id)).toEqual(['order-0', 'order-1', 'order-2']);
    expect(await cliJson(['cancel', 'payment', 'order-0', '--yes', ...flags])).toMatchObject({ result: 'cancelled' });

    const url = `redis+cluster://${hostList(cluster.startupNodes.slice(1))}`;
    expect(await cliJson(['inspect', 'payment', 'order-7', '--url', url, '--prefix', prefix])).toMatchObject({ id: 'order-7', state: 'pending' });
    const fromEnv = await cliJson<TopicStatsJson>(['stats'], { REDIS_URL: url, DT_PREFIX: prefix });
    expect(fromEnv.topics).toEqual([expect.objectContaining({ topic: 'payment', pending: 39 })]);
  });

  it('logs in as an ACL user by --user and REDIS_PASSWORD, and says so when the password is wrong', async () => {
    for (const node of cluster.nodes) {
      const client = node.client();
      await client.call('ACL', 'SETUSER', 'operator', 'on', '>op-secret', ...aclRulesFor(prefix, { cluster: true }).split(' '));
      client.disconnect();
    }
    const flags = ['--cluster', hostList(cluster.startupNodes), '--user', 'operator', '--prefix', prefix];
    expect((await cliJson<TopicStatsJson>(['stats', ...flags], { REDIS_PASSWORD: 'op-secret' })).topics).toHaveLength(1);
    const refused = await cli(['stats', ...flags, '--timeout', '1000'], { REDIS_PASSWORD: 'not-it' });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/refused the login: .*WRONGPASS/);
    expect(refused.stderr).not.toContain('not-it');
  });

  it('refuses a one-server URL to a Cluster node (exit 2), showing the flag and the Cluster URL to use', async () => {
    const node = cluster.nodes[0]!;
    const run = await cli(['stats', '--url', `redis://${node.host}:${node.port}`, '--prefix', prefix]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--cluster ${node.host}:${node.port}`);
    expect(run.stderr).toContain(`--url redis+cluster://${node.host}:${node.port}`);
    // The command line's options, not the engine's `connection` option.
    expect(run.stderr).not.toContain('connection:');
  });
});

describe('durable-timeout through Sentinel', () => {
  it('finds the primary by --sentinel and --name, and by a redis+sentinel:// URL', async () => {
    const flags = ['--sentinel', hostList(group.sentinels), '--name', group.name, '--prefix', prefix];
    expect((await cliJson<TopicStatsJson>(['stats', ...flags])).topics).toEqual([expect.objectContaining({ topic: 'payment', pending: 12 })]);
    expect(await cliJson(['cancel', 'payment', 'order-11', '--yes', ...flags])).toMatchObject({ result: 'cancelled' });
    const url = `redis+sentinel://${hostList(group.sentinels.slice(1))}/${group.name}`;
    const pending = await cliJson<{ id: string }[]>(['pending', 'payment', '--limit', '20', '--url', url, '--prefix', prefix]);
    expect(pending).toHaveLength(11);
  });

  it('exits 2 on --sentinel without --name, and on two ways to connect at once', async () => {
    const noName = await cli(['stats', '--sentinel', hostList(group.sentinels)]);
    expect({ code: noName.code, stderr: noName.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('--sentinel needs --name') });
    const both = await cli(['stats', '--url', 'redis://127.0.0.1:6379', '--cluster', hostList(cluster.startupNodes)]);
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('give one of them') });
  });
});

describe('durable-timeout over TLS', () => {
  it('connects with --tls as an ACL user, trusting a private CA through NODE_EXTRA_CA_CERTS, and exits 6 without it', async () => {
    const admin = tlsServer.client();
    await admin.call('ACL', 'SETUSER', 'tls-user', 'on', '>tls-user-secret', ...aclRulesFor(prefix).split(' '));
    admin.disconnect();
    const flags = ['--url', `redis://127.0.0.1:${tlsServer.port}`, '--tls', '--user', 'tls-user', '--prefix', prefix];
    const env = { REDIS_PASSWORD: 'tls-user-secret', NODE_EXTRA_CA_CERTS: certificates.caFile };
    expect((await cliJson<TopicStatsJson>(['stats', ...flags], env)).topics).toEqual([expect.objectContaining({ topic: 'payment', pending: 3 })]);
    const untrusted = await cli(['stats', ...flags, '--timeout', '1000'], { REDIS_PASSWORD: 'tls-user-secret', NODE_EXTRA_CA_CERTS: certificates.wrongCaFile });
    expect(untrusted.code).toBe(6);
    expect(untrusted.stderr).toMatch(/certificate/i);
  });
});
