import { describe, expect, it } from '@jest/globals';
import type { RedisOptions } from 'ioredis';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';
import { openConnection } from './redis-connection.js';
import { assertSentinelOptions, isSentinelOptions, READONLY_QUIET_MS, reconnectOnReadonly, sentinelReconnectDelay } from './sentinel-connection.js';

describe('Sentinel connection options', () => {
  it('accepts sentinels with a master name', () => {
    expect(() => assertSentinelOptions({ sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: 'sentinel-b' }], name: 'mymaster' })).not.toThrow();
  });

  it.each<[string, RedisOptions, RegExp]>([
    ['no sentinels', { sentinels: [], name: 'm' }, /`sentinels` must be a non-empty array/],
    ['sentinels not an array', { sentinels: 'a:1' as never, name: 'm' }, /non-empty array/],
    ['an entry that is not an object', { sentinels: ['a:1' as never], name: 'm' }, /sentinels\[0\] is "a:1"/],
    ['an empty host', { sentinels: [{ host: ' ', port: 1 }], name: 'm' }, /sentinels\[0\]\.host/],
    ['a bad port', { sentinels: [{ host: 'a', port: 70_000 }], name: 'm' }, /sentinels\[0\]\.port is 70000/],
    ['no name', { sentinels: [{ host: 'a', port: 1 }] }, /`name`/],
    ['an empty name', { sentinels: [{ host: 'a', port: 1 }], name: '' }, /`name`/],
    ['a replica role', { sentinels: [{ host: 'a', port: 1 }], name: 'm', role: 'slave' }, /role "slave"/],
  ])('refuses %s with a typed error that says what to pass', (_case, options, problem) => {
    expect(() => assertSentinelOptions(options)).toThrow(InvalidStoreOptionError);
    expect(() => assertSentinelOptions(options)).toThrow(problem);
    expect(() => assertSentinelOptions(options)).toThrow(/sentinels: \[\{ host, port \}/);
  });

  it('validates when the store opens the connection, and opens no socket for bad input', () => {
    expect(() => openConnection({ sentinels: [{ host: 'a', port: 0 }], name: 'm' })).toThrow(InvalidStoreOptionError);
  });

  it('opens Sentinel connections with the fast reconnect and the READONLY reconnect; the caller wins', () => {
    const { client } = openConnection({ sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'm' });
    expect(client.options).toMatchObject({ lazyConnect: true, reconnectOnError: expect.any(Function) });
    expect((client.options as RedisOptions).retryStrategy).toBe(sentinelReconnectDelay);
    client.disconnect();
    const retryStrategy = () => 1_000;
    const own = openConnection({ sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'm', retryStrategy }).client;
    expect((own.options as RedisOptions).retryStrategy).toBe(retryStrategy);
    own.disconnect();
  });

  it('tells Sentinel options from others', () => {
    expect(isSentinelOptions({ sentinels: [{ host: 'a' }], name: 'm' })).toBe(true);
    expect(isSentinelOptions({ host: 'a' })).toBe(false);
  });

  it('reconnects on READONLY only, and retries a lost Sentinel connection within 200 ms', () => {
    const reconnect = reconnectOnReadonly(() => 0);
    expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(true);
    expect(reconnect(new Error('ERR unknown command'))).toBe(false);
    expect([1, 2, 4, 8, 100].map(sentinelReconnectDelay)).toEqual([25, 50, 100, 200, 200]);
  });

  it('backs the READONLY reconnects off while the server keeps answering READONLY, and starts over after a quiet while', () => {
    let now = 0;
    const reconnect = reconnectOnReadonly((attempt) => 100 * 2 ** attempt, () => now);
    const readonly = new Error("READONLY You can't write against a read only replica.");
    const reconnectedAt: number[] = [];
    for (now = 0; now <= 3_000; now += 10) if (reconnect(readonly)) reconnectedAt.push(now);
    expect(reconnectedAt).toEqual([0, 100, 300, 700, 1_500]);
    now += READONLY_QUIET_MS + 1;
    expect(reconnect(readonly)).toBe(true);
    now += 10;
    expect(reconnect(readonly)).toBe(false);
  });

  it('gives each connection its own READONLY backoff', () => {
    const first = openConnection('redis://127.0.0.1:1').client;
    const second = openConnection('redis://127.0.0.1:1').client;
    const readonly = new Error("READONLY You can't write against a read only replica.");
    const onError = (client: typeof first) => (client.options as RedisOptions).reconnectOnError as (error: Error) => boolean;
    expect(onError(first)).not.toBe(onError(second));
    expect(onError(first)(readonly)).toBe(true);
    expect(onError(second)(readonly)).toBe(true);
    first.disconnect();
    second.disconnect();
  });
});
