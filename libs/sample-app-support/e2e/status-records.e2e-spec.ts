import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import { RecordExistsError } from '../src/errors/record-exists.error.js';
import { StateUnavailableError } from '../src/errors/state-unavailable.error.js';
import { StatusRecords } from '../src/records/status-records.js';

type Status = 'OPEN' | 'TAKEN' | 'DONE';
type Cause = 'take' | 'finish' | 'timeout';
const STATUSES: readonly Status[] = ['OPEN', 'TAKEN', 'DONE'];

describe('StatusRecords (compare-and-set in Lua, against Redis)', () => {
  let server: RedisServer;
  let redis: Redis;
  let records: StatusRecords<Status, Cause>;
  const claims = () => records.keys.shared('workers:assigned');
  const created = async (dueAt = 1_000) => {
    const id = randomUUID();
    await records.create(id, { status: 'OPEN', dueField: 'dueAt', due: { dueAt }, fields: { details: '{}' } });
    return id;
  };

  beforeAll(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
    records = new StatusRecords(redis, { prefix: `records-${randomUUID().slice(0, 8)}`, kind: 'job', statuses: STATUSES, instance: 'i-1' });
  });
  afterAll(async () => {
    await redis.quit();
    await server.stop();
  });

  it('creates a record once, with a due time given or counted from the Redis clock', async () => {
    const id = randomUUID();
    const first = await records.create(id, { status: 'OPEN', dueField: 'dueAt', due: { delayMs: 5_000 }, fields: { details: '{"a":1}' } });
    expect(first.dueAt - first.createdAt).toBe(5_000);
    await expect(records.create(id, { status: 'OPEN', dueField: 'dueAt', due: { dueAt: 1 } })).rejects.toThrow(RecordExistsError);
    expect(await records.read(id)).toEqual({
      fields: { id, status: 'OPEN', createdAt: String(first.createdAt), updatedAt: String(first.createdAt), dueAt: String(first.dueAt), details: '{"a":1}' },
      transitions: [],
    });
    expect(await records.read(randomUUID())).toBeNull();
  });

  it('applies a change from an allowed status once, writing fields and one audit line', async () => {
    const id = await created();
    const applied = await records.transition(id, {
      from: ['OPEN'],
      to: 'DONE',
      by: 'timeout',
      delivery: { fencingToken: 7, attempt: 2 },
      set: { reason: 'late', count: 3 },
      unset: ['details'],
      line: { note: 'n' },
    });
    expect(applied).toEqual({ kind: 'applied', at: expect.any(Number) });
    expect(await records.transition(id, { from: ['OPEN'], to: 'DONE', by: 'timeout' })).toEqual({ kind: 'refused', status: 'DONE' });
    const stored = await records.read(id);
    expect(stored?.fields).toMatchObject({ status: 'DONE', reason: 'late', count: '3' });
    expect(stored?.fields).not.toHaveProperty('details');
    expect(stored?.transitions.map((line) => JSON.parse(line))).toEqual([
      { from: 'OPEN', to: 'DONE', at: applied.kind === 'applied' ? applied.at : 0, by: 'timeout', fencingToken: 7, attempt: 2, instance: 'i-1', note: 'n' },
    ]);
    expect(await records.transition(randomUUID(), { from: ['OPEN'], to: 'DONE', by: 'timeout' })).toEqual({ kind: 'not_found' });
  });

  it('refuses when an expected field differs, or when the deadline moved later than the delivery', async () => {
    const id = await created(5_000);
    await records.transition(id, { from: ['OPEN'], to: 'OPEN', by: 'take', set: { owner: 'w-1' } });
    expect(await records.transition(id, { from: ['OPEN'], to: 'DONE', by: 'finish', expect: { owner: 'w-2' } })).toEqual({ kind: 'mismatch', field: 'owner' });
    expect(await records.transition(id, { from: ['OPEN'], to: 'DONE', by: 'timeout', deadline: { field: 'dueAt', dueAt: 4_999 } })).toEqual({
      kind: 'moved',
      dueAt: 5_000,
    });
    expect(await records.transition(id, { from: ['OPEN'], to: 'DONE', by: 'timeout', deadline: { field: 'missing', dueAt: 9_999 } })).toEqual({
      kind: 'refused',
      status: 'OPEN',
    });
    expect((await records.read(id))?.fields['status']).toBe('OPEN');
    const done = await records.transition(id, { from: ['OPEN'], to: 'DONE', by: 'timeout', expect: { owner: 'w-1' }, deadline: { field: 'dueAt', dueAt: 5_000 } });
    expect(done.kind).toBe('applied');
  });

  it('takes a shared resource for one record at a time and releases it only from its holder', async () => {
    const [first, second] = [await created(), await created()];
    expect((await records.transition(first, { from: ['OPEN'], to: 'TAKEN', by: 'take', claims: { key: claims(), take: 'w-9' } })).kind).toBe('applied');
    expect(await records.transition(second, { from: ['OPEN'], to: 'TAKEN', by: 'take', claims: { key: claims(), take: 'w-9' } })).toEqual({ kind: 'busy', holder: first });
    expect((await records.read(second))?.fields['status']).toBe('OPEN');
    // The second record does not hold w-9: its release leaves the first one's claim alone.
    await records.transition(second, { from: ['OPEN'], to: 'DONE', by: 'finish', claims: { key: claims(), release: 'w-9' } });
    expect(await redis.hget(claims(), 'w-9')).toBe(first);
    await records.transition(first, { from: ['TAKEN'], to: 'DONE', by: 'finish', claims: { key: claims(), release: 'w-9' } });
    expect(await redis.hget(claims(), 'w-9')).toBeNull();
  });

  it('turns an unreachable Redis into StateUnavailableError', async () => {
    const offline = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const unreachable = new StatusRecords<Status, Cause>(offline, { prefix: 'x', kind: 'job', statuses: STATUSES, instance: undefined });
    await expect(unreachable.read('a')).rejects.toThrow(StateUnavailableError);
    offline.disconnect();
  });
});
