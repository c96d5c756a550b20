import { describe, expect, it } from '@jest/globals';
import { InvalidConnectionError } from './invalid-connection.error.js';
import { maskPassword, parseConnectionUrl } from './connection-url.js';

describe('parseConnectionUrl', () => {
  it('leaves one-server URLs to ioredis, unchanged', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://u:p@cache.example.com:6380/2', 'REDIS://h']) expect(parseConnectionUrl(url)).toBe(url);
  });

  it('reads a Cluster URL: its nodes, default port 6379, login and TLS', () => {
    expect(parseConnectionUrl('redis+cluster://10.0.0.1:7000,10.0.0.2,[::1]:7002')).toEqual({
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      options: { redisOptions: {} },
    });
    expect(parseConnectionUrl('rediss+cluster://app:p%40ss@node-1:7000,node-2:7000/')).toEqual({
      cluster: [
        { host: 'node-1', port: 7000 },
        { host: 'node-2', port: 7000 },
      ],
      options: { redisOptions: { username: 'app', password: 'p@ss', tls: {} } },
    });
  });

  it('reads a Sentinel URL: sentinels (default port 26379), master name, database, logins and TLS', () => {
    expect(parseConnectionUrl('redis+sentinel://s1:26379,s2/mymaster')).toEqual({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
    });
    expect(parseConnectionUrl('rediss+sentinel://:secret@s1:26380/orders/3?sentinelUsername=watch&sentinelPassword=w%2Fpw')).toEqual({
      sentinels: [{ host: 's1', port: 26380 }],
      name: 'orders',
      password: 'secret',
      db: 3,
      sentinelUsername: 'watch',
      sentinelPassword: 'w/pw',
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
    });
  });

  it.each([
    ['', /it is empty/],
    ['http://h:6379', /the scheme "http"/],
    ['redis+cluster://', /no host/],
    ['redis+cluster://h:7000,,h:7001', /"" is not a host/],
    ['redis+cluster://h:99999', /port of "h:99999"/],
    ['redis+cluster://h:7000/3', /only database 0/],
    ['redis+cluster://h:7000?tls=1', /unknown parameter "tls"/],
    ['redis+sentinel://h:26379', /master name is missing/],
    ['redis+sentinel://h:26379/m/x', /database "x" is not a number/],
    ['redis+sentinel://h:26379/m?nope=1', /unknown parameter "nope"/],
    ['redis+sentinel://u:%E0%A4%A@h/m', /password is not percent-encoded/],
  ])('refuses %j with an InvalidConnectionError naming the problem', (url, problem) => {
    let thrown: unknown;
    try {
      parseConnectionUrl(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidConnectionError);
    expect((thrown as InvalidConnectionError).reason).toBe('url');
    expect((thrown as Error).message).toMatch(problem);
    expect((thrown as Error).message).toContain('redis+cluster://[user:password@]host:port,host:port');
  });

  it('never shows a password in its messages', () => {
    expect(() => parseConnectionUrl('redis+sentinel://app:hunter2@h:26379')).toThrow(/redis\+sentinel:\/\/app:\*\*\*@h:26379/);
    expect(maskPassword('rediss://u:p@h:1/0')).toBe('rediss://u:***@h:1/0');
    expect(maskPassword('redis://h:1')).toBe('redis://h:1');
  });
});
