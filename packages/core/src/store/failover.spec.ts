import { describe, expect, it, jest } from '@jest/globals';
import { failoverReply, failoverRetryDelay, retryDuringFailover } from './failover.js';

describe('failoverReply', () => {
  it.each([
    ['MOVED 1664 127.0.0.1:7001', 'MOVED'],
    ['ASK 12 127.0.0.1:7002', 'ASK'],
    ['TRYAGAIN Multiple keys request during rehashing of slot', 'TRYAGAIN'],
    ['CLUSTERDOWN The cluster is down', 'CLUSTERDOWN'],
    ["READONLY You can't write against a read only replica.", 'READONLY'],
    ["ERR Error running script (call to f_1): @user_script:3: READONLY You can't write against a read only replica.", 'READONLY'],
    ['LOADING Redis is loading the dataset in memory', 'LOADING'],
    ['MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no', 'MASTERDOWN'],
    ['NOREPLICAS Not enough good replicas to write.', 'NOREPLICAS'],
    ['NOREPLICAS Not enough good replicas to write. script: 680f0f00, on @user_script:1.', 'NOREPLICAS'],
  ])('recognises %s', (message, reply) => {
    expect(failoverReply(new Error(message))).toBe(reply);
  });

  it.each(['DTMOVED 32', 'DTLOCKED 16', 'Connection is closed.', 'NOSCRIPT No matching script', 'ERR ASKING is not allowed here'])(
    'leaves %s alone',
    (message) => {
      expect(failoverReply(new Error(message))).toBeUndefined();
    },
  );

  it('needs an Error', () => {
    expect(failoverReply('MOVED 1 a:1')).toBeUndefined();
  });
});

describe('retryDuringFailover', () => {
  it('sends the call again after a failover reply and returns its answer', async () => {
    const call = jest
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(new Error('MOVED 1 127.0.0.1:7000'))
      .mockRejectedValueOnce(new Error('CLUSTERDOWN The cluster is down'))
      .mockResolvedValueOnce('ok');
    const recovered: string[] = [];
    await expect(retryDuringFailover(call, { budgetMs: 1_000, recover: (reply) => recovered.push(reply) })).resolves.toBe('ok');
    expect(call).toHaveBeenCalledTimes(3);
    expect(recovered).toEqual(['MOVED', 'CLUSTERDOWN']);
  });

  it('throws any other error at once', async () => {
    const call = jest.fn<() => Promise<string>>().mockRejectedValue(new Error('Connection is closed.'));
    await expect(retryDuringFailover(call, { budgetMs: 1_000 })).rejects.toThrow('Connection is closed.');
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('gives up with the last refusal once the budget is spent', async () => {
    const call = jest.fn<() => Promise<string>>().mockRejectedValue(new Error('TRYAGAIN later'));
    await expect(retryDuringFailover(call, { budgetMs: 60 })).rejects.toThrow('TRYAGAIN later');
    expect(call.mock.calls.length).toBeGreaterThan(1);
  });

  it('keeps going when recovering throws', async () => {
    const call = jest.fn<() => Promise<number>>().mockRejectedValueOnce(new Error('READONLY no')).mockResolvedValueOnce(1);
    await expect(
      retryDuringFailover(call, {
        budgetMs: 1_000,
        recover: () => {
          throw new Error('refresh failed');
        },
      }),
    ).resolves.toBe(1);
  });

  it('backs off from 10 ms to at most 100 ms', () => {
    expect([0, 1, 2, 3, 4, 10].map(failoverRetryDelay)).toEqual([10, 20, 40, 80, 100, 100]);
  });
});
