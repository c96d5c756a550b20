import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { InstancePool } from './instance-pool.js';

const a = { name: 'A', baseUrl: 'http://a.test' };
const b = { name: 'B', baseUrl: 'http://b.test' };

function refused(): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
}

function reset(): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
}

function mockFetch(answer: (url: string) => Response | Error) {
  return jest.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    const outcome = answer(String(input));
    if (outcome instanceof Error) throw outcome;
    return outcome;
  });
}

describe('InstancePool', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('spreads requests round-robin over the instances in rotation', async () => {
    const fetchMock = mockFetch(() => new Response('{}'));
    const pool = new InstancePool();
    pool.add(a);
    pool.add(b);
    for (let i = 0; i < 4; i++) await pool.request('/orders/1', {}, 'idempotent');
    const hosts = fetchMock.mock.calls.map(([url]) => new URL(String(url)).host);
    expect(hosts.sort()).toEqual(['a.test', 'a.test', 'b.test', 'b.test']);
  });

  it('never sends to an instance taken out of rotation', async () => {
    const fetchMock = mockFetch(() => new Response('{}'));
    const pool = new InstancePool();
    pool.add(a);
    pool.add(b);
    pool.remove(a);
    for (let i = 0; i < 3; i++) await pool.request('/x', {}, 'idempotent');
    expect(fetchMock.mock.calls.every(([url]) => String(url).startsWith('http://b.test'))).toBe(true);
    expect(pool.current).toEqual([b]);
  });

  it('moves an idempotent request to the next instance after any network error', async () => {
    mockFetch((url) => (url.startsWith(a.baseUrl) ? reset() : new Response('ok')));
    const pool = new InstancePool();
    pool.add(a);
    pool.add(b);
    const responses = await Promise.all([1, 2, 3].map(() => pool.request('/x', {}, 'idempotent')));
    expect(await Promise.all(responses.map((response) => response.text()))).toEqual(['ok', 'ok', 'ok']);
    expect(pool.networkErrors).toBeGreaterThan(0);
  });

  it('retries a non-idempotent request only when the connection was refused', async () => {
    mockFetch((url) => (url.startsWith(a.baseUrl) ? refused() : new Response('ok')));
    const pool = new InstancePool();
    pool.add(a);
    pool.add(b);
    for (let i = 0; i < 2; i++) {
      await expect(pool.request('/orders', { method: 'POST' }, 'not-delivered-only')).resolves.toBeInstanceOf(Response);
    }

    jest.restoreAllMocks();
    mockFetch(() => reset());
    await expect(pool.request('/orders', { method: 'POST' }, 'not-delivered-only')).rejects.toThrow('fetch failed');
  });

  it('waits for an instance to join the rotation', async () => {
    mockFetch(() => new Response('late'));
    const pool = new InstancePool();
    const pending = pool.request('/x', {}, 'idempotent');
    setTimeout(() => pool.add(b), 20);
    await expect((await pending).text()).resolves.toBe('late');
  });

  it('gives up when no instance joins in time', async () => {
    const pool = new InstancePool(30);
    await expect(pool.request('/x', {}, 'idempotent')).rejects.toThrow(/No orders instance was reachable for 30 ms/);
  });

  it('fails waiting and new requests at once when closed, and takes no instance back', async () => {
    const fetchMock = mockFetch(() => new Response('{}'));
    const pool = new InstancePool();
    const waiting = pool.request('/x', {}, 'idempotent');
    pool.close();
    await expect(waiting).rejects.toThrow(/stopped its orders instances/);
    pool.add(a);
    await expect(pool.request('/x', {}, 'idempotent')).rejects.toThrow(/stopped its orders instances/);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
