import { describe, expect, it } from '@jest/globals';
import { resolveConnection, type ConnectionFlags } from './connection-flags.js';
import { UsageError } from './errors/usage.error.js';

const flags = (given: Partial<ConnectionFlags>): ConnectionFlags => ({ url: 'redis://127.0.0.1:6379', urlSource: 'default', ...given });

describe('resolveConnection', () => {
  it('turns --cluster and --sentinel --name into the engine URLs', () => {
    expect(resolveConnection(flags({ cluster: 'n1:7000,n2:7001' })).url).toBe('redis+cluster://n1:7000,n2:7001');
    expect(resolveConnection(flags({ sentinel: 's1:26379,s2:26379', name: 'orders main' })).url).toBe('redis+sentinel://s1:26379,s2:26379/orders%20main');
  });

  it('applies --tls, --user and --password to any URL, replacing only the parts given, and masks the password for messages', () => {
    expect(resolveConnection(flags({ url: 'redis://old:pw@h:6379/2', urlSource: 'env', tls: true })).url).toBe('rediss://old:pw@h:6379/2');
    expect(resolveConnection(flags({ url: 'redis://old:pw@h:6379/2', user: 'ops' })).url).toBe('redis://ops:pw@h:6379/2');
    const resolved = resolveConnection(flags({ cluster: 'n1:7000', tls: true, user: 'ops', password: 'p@ss:word' }));
    expect(resolved).toEqual({ url: 'rediss+cluster://ops:p%40ss%3Aword@n1:7000', shown: 'rediss+cluster://ops:***@n1:7000' });
  });

  it('lets --cluster or --sentinel win over REDIS_URL, but refuses them next to --url', () => {
    expect(resolveConnection(flags({ url: 'redis://h:1', urlSource: 'env', cluster: 'n1:7000' })).url).toBe('redis+cluster://n1:7000');
    expect(() => resolveConnection(flags({ url: 'redis://h:1', urlSource: 'cli', cluster: 'n1:7000' }))).toThrow(/--url and --cluster both say where Redis is/);
    expect(() => resolveConnection(flags({ cluster: 'n1:7000', sentinel: 's1:26379', name: 'm' }))).toThrow(/--cluster and --sentinel/);
  });

  it.each([
    [{ sentinel: 's1:26379' }, /--sentinel needs --name/],
    [{ name: 'mymaster' }, /--name is the master name of a Sentinel set-up/],
    [{ cluster: 'n1:7000,:7001' }, /":7001" is not a host or host:port/],
    [{ url: 'http://h', urlSource: 'cli' as const }, /the scheme "http"/],
  ])('refuses %j with a UsageError naming the problem', (given, problem) => {
    expect(() => resolveConnection(flags(given))).toThrow(UsageError);
    expect(() => resolveConnection(flags(given))).toThrow(problem);
  });
});
