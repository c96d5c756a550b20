import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisCluster, RedisSentinelGroup } from '@durable-timeout/redis-testing';
import { InvalidConnectionError } from '../src/store/invalid-connection.error.js';
import { EngineRig, nextEvent, uniquePrefix } from './fixtures/engine-helpers.js';

/**
 * The connection URLs of a Redis Cluster and of Sentinel (`redis+cluster://`, `redis+sentinel://`)
 * against real ones, and a one-server URL pointed at a Cluster node, which must fail at once with
 * a typed error that shows the Cluster URL, instead of timing out on MOVED replies.
 */
let cluster: RedisCluster;
let group: RedisSentinelGroup;
const rig = new EngineRig();

beforeAll(async () => {
  [cluster, group] = await Promise.all([RedisCluster.start(), RedisSentinelGroup.start({ replicas: 1, sentinels: 3 })]);
}, 180_000);

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await Promise.all([cluster?.stop(), group?.stop()]);
});

const hostList = (nodes: readonly { host: string; port: number }[]): string => nodes.map(({ host, port }) => `${host}:${port}`).join(',');

describe('connection URLs', () => {
  it('redis+cluster:// reaches the Cluster by some of its nodes: schedules land on every master and fire', async () => {
    const timeouts = rig.open({ connection: `redis+cluster://${hostList(cluster.startupNodes.slice(0, 2))}`, prefix: uniquePrefix(), topics: { payment: { slots: 16 } } });
    timeouts.handle('payment', () => undefined);
    await timeouts.start();
    const fired = nextEvent(timeouts, 'fired', (event) => event.id === 'order-9');
    for (let n = 0; n < 10; n++) await timeouts.schedule('payment', `order-${n}`, { delayMs: n === 9 ? 50 : 60_000 });
    await fired;
    expect((await timeouts.stats('payment')).pending).toBe(9);
  });

  it('redis+sentinel:// finds the primary through the sentinels by master name', async () => {
    const timeouts = rig.open({ connection: `redis+sentinel://${hostList(group.sentinels)}/${group.name}`, prefix: uniquePrefix(), topics: { payment: { slots: 4 } } });
    timeouts.handle('payment', () => undefined);
    await timeouts.start();
    const fired = nextEvent(timeouts, 'fired', (event) => event.id === 'order-1');
    await timeouts.schedule('payment', 'order-1', { delayMs: 50 });
    await fired;
    const primary = (await group.primary()).client();
    try {
      expect(await primary.dbsize()).toBeGreaterThan(0);
    } finally {
      primary.disconnect();
    }
  });

  it('a one-server URL to a Cluster node fails at start, and on the first schedule, with InvalidConnectionError naming redis+cluster://', async () => {
    const node = cluster.nodes[0]!;
    const url = `redis://${node.host}:${node.port}`;
    const started = rig.open({ connection: url, prefix: uniquePrefix(), topics: { payment: { slots: 16 } }, commandTimeoutMs: 30_000 });
    started.handle('payment', () => undefined);
    const refusal = await started.start().then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidConnectionError);
    expect((refusal as Error).message).toContain(`redis+cluster://${node.host}:${node.port}`);
    expect(refusal).toMatchObject({ reason: 'cluster-node', connection: `${node.host}:${node.port}` });

    const scheduler = rig.open({ connection: url, prefix: uniquePrefix(), topics: { payment: { slots: 16 } }, commandTimeoutMs: 30_000 });
    const scheduled = await Promise.all(
      Array.from({ length: 16 }, (_, n) => scheduler.schedule('payment', `order-${n}`, { delayMs: 60_000 }).then(() => undefined, (error: unknown) => error)),
    );
    const errors = scheduled.filter((outcome) => outcome !== undefined);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toBeInstanceOf(InvalidConnectionError);
    for (const error of errors) expect(error).toMatchObject({ reason: 'cluster-node' });
  });

  it('a URL it cannot read is an InvalidConnectionError from the constructor', () => {
    expect(() => rig.open({ connection: 'redis+sentinel://127.0.0.1:1', topics: { payment: {} } })).toThrow(InvalidConnectionError);
    expect(() => rig.open({ connection: 'redis+sentinel://127.0.0.1:1', topics: { payment: {} } })).toThrow(expect.objectContaining({ reason: 'url' }));
  });
});
