import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { RedisServer } from '@durable-timeout/redis-testing';
import { aclRulesFor, aesGcmCodec, DurableTimeouts } from '@durable-timeout/core';
import { assertBuilt, cli, cliJson } from './fixtures/run-cli.js';

const SLOTS = 8;
const SECRET = '4111-1111-1111-1111';
let server: RedisServer;
let admin: Redis;
let prefix: string;
let base: string[];
let engine: DurableTimeouts<'payment' | 'ride'>;

beforeAll(async () => {
  assertBuilt();
  server = await RedisServer.start();
  admin = server.client();
  prefix = `cli${randomUUID().slice(0, 8)}`;
  base = ['--url', server.url, '--prefix', prefix];
  engine = new DurableTimeouts({
    connection: server.url,
    prefix,
    topics: { payment: { slots: SLOTS, maxAttempts: 1 }, ride: { slots: 2 } },
    logger: null,
  });
  // Two dead letters, then thirty pending timeouts due over the next hour.
  let dead = 0;
  engine.on('dead', () => dead++);
  engine.handle('payment', (event) => {
    throw new Error(`card declined for ${event.id}`);
  });
  await engine.start();
  for (const id of ['poison-1', 'poison-2']) await engine.schedule('payment', id, { at: Date.now(), payload: { card: SECRET } });
  const deadline = Date.now() + 10_000;
  while (dead < 2) {
    if (Date.now() > deadline) throw new Error('the dead letters did not appear');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await engine.stop({ drainMs: 0 });
  engine = new DurableTimeouts({ connection: server.url, prefix, topics: { payment: { slots: SLOTS }, ride: { slots: 2 } }, logger: null });
  const now = Date.now();
  for (let n = 0; n < 30; n++) await engine.schedule('payment', `order-${n}`, { at: now + 60_000 * (n + 1), payload: { card: SECRET, n } });
  // The topic registry, as engines write it on first use.
  await admin.hset(`${prefix}:topics`, { payment: String(SLOTS), ride: '2' });
}, 60_000);

afterAll(async () => {
  await engine?.stop({ drainMs: 0 });
  await admin?.quit();
  await server?.stop();
});

describe('durable-timeout, the built command against a real Redis', () => {
  it('lists every topic of the registry with its counts', async () => {
    const stats = await cliJson<{ prefix: string; topics: Array<Record<string, unknown>> }>([...base, 'stats']);
    expect(stats.prefix).toBe(prefix);
    expect(stats.topics).toEqual([
      expect.objectContaining({ topic: 'payment', slots: SLOTS, pending: 30, firing: 0, dead: 2, oldestOverdueMs: 0 }),
      expect.objectContaining({ topic: 'ride', slots: 2, pending: 0, dead: 0 }),
    ]);
    const table = await cli([...base, 'stats']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^topic\s+slots\s+pending\s+firing\s+dead\s+oldest overdue$/m);
    expect(table.stdout).toMatch(/^payment\s+8\s+30\s+0\s+2\s+-$/m);
  });

  it('shows one topic slot by slot, with the spread', async () => {
    const stats = await cliJson<{ pending: number; spread: { min: number; max: number }; perSlot: Array<{ slot: number; pending: number }> }>([
      ...base,
      'stats',
      'payment',
    ]);
    expect(stats.perSlot.map((slot) => slot.slot)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(stats.perSlot.reduce((sum, slot) => sum + slot.pending, 0)).toBe(30);
    expect(stats.spread.max).toBe(Math.max(...stats.perSlot.map((slot) => slot.pending)));
    const text = (await cli([...base, 'stats', 'payment'])).stdout;
    expect(text).toContain('topic payment: 8 slots, 30 pending, 0 firing, 2 dead');
    expect(text.split('\n').filter((line) => /^\s+\d\s+\d+\s+0\s+\d\s+-$/.test(line))).toHaveLength(8);
  });

  it('lists the next pending timeouts earliest first across slots, payloads hidden unless asked', async () => {
    const page = await cliJson<Array<Record<string, unknown>>>([...base, 'pending', 'payment', '--limit', '5', '--offset', '2']);
    expect(page.map((info) => info['id'])).toEqual(['order-2', 'order-3', 'order-4', 'order-5', 'order-6']);
    expect(page[0]).toMatchObject({ topic: 'payment', state: 'pending', attempt: 0 });
    expect(page[0]).not.toHaveProperty('payload');
    const text = await cli([...base, 'pending', 'payment']);
    expect(text.stdout).not.toContain(SECRET);
    expect(text.stdout.split('\n')[1]).toMatch(/^order-0\s+\S+Z\s+in \d+\.\d s\s+0$/);
    const shown = await cliJson<Array<{ payload: unknown }>>([...base, 'pending', 'payment', '--limit', '1', '--show-payloads']);
    expect(shown[0]!.payload).toEqual({ card: SECRET, n: 0 });
    expect((await cli([...base, 'pending', 'payment', '--show-payloads'])).stdout).toContain(SECRET);
  });

  it('inspects one timeout, and exits 3 for one that does not exist', async () => {
    const info = await cliJson<Record<string, unknown>>([...base, 'inspect', 'payment', 'poison-1']);
    expect(info).toMatchObject({ id: 'poison-1', state: 'dead', attempt: 1, lastError: 'card declined for poison-1' });
    expect(info).not.toHaveProperty('payload');
    const text = await cli([...base, 'inspect', 'payment', 'order-7']);
    expect(text.stdout).toMatch(/^state\s+pending$/m);
    expect(text.stdout).toMatch(/^payload\s+\(hidden: add --show-payloads\)$/m);
    const missing = await cli([...base, 'inspect', 'payment', 'nobody']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('No timeout "nobody" in topic "payment"');
  });

  it('lists, replays and purges dead letters, and changes nothing without --yes', async () => {
    const letters = await cliJson<Array<Record<string, unknown>>>([...base, 'dead', 'list', 'payment']);
    expect(letters.map((letter) => letter['id'])).toEqual(['poison-1', 'poison-2']);
    expect(letters[1]).toMatchObject({ attempts: 1, lastError: 'card declined for poison-2' });
    expect((await cli([...base, 'dead', 'list', 'payment'])).stdout).toContain('card declined for poison-1');

    const refused = await cli([...base, 'dead', 'replay', 'payment', 'poison-1']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('--yes');
    expect((await engine.get('payment', 'poison-1'))!.state).toBe('dead');

    expect(await cliJson([...base, 'dead', 'replay', 'payment', 'poison-1', '--yes'])).toEqual({ topic: 'payment', replayed: 1 });
    expect(await engine.get('payment', 'poison-1')).toMatchObject({ state: 'pending', attempt: 0 });
    expect((await cli([...base, 'dead', 'replay', 'payment', 'poison-1', '--yes'])).code).toBe(3);

    expect((await cli([...base, 'dead', 'purge', 'payment'])).code).toBe(4);
    const purged = await cli([...base, 'dead', 'purge', 'payment', '--yes']);
    expect(purged).toMatchObject({ code: 0, stdout: 'purged 1 dead letter of payment\n' });
    expect(await engine.get('payment', 'poison-2')).toBeNull();
    expect(await engine.cancel('payment', 'poison-1')).toBe('cancelled');
  });

  it('cancels with --yes only: 3 when not pending, 5 while firing', async () => {
    expect((await cli([...base, 'cancel', 'payment', 'order-29'])).code).toBe(4);
    expect((await engine.get('payment', 'order-29'))!.state).toBe('pending');
    expect(await cliJson([...base, 'cancel', 'payment', 'order-29', '--yes'])).toEqual({ topic: 'payment', id: 'order-29', result: 'cancelled' });
    expect(await engine.get('payment', 'order-29')).toBeNull();
    expect((await cli([...base, 'cancel', 'payment', 'order-29', '--yes'])).code).toBe(3);

    // A worker holds 'held' while the command tries to cancel it.
    const worker = new DurableTimeouts({ connection: server.url, prefix, topics: { payment: { slots: SLOTS } }, logger: null });
    let started = false;
    let release: () => void = () => undefined;
    worker.handle('payment', async () => {
      started = true;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    try {
      await worker.start();
      await worker.schedule('payment', 'held', { at: Date.now() - 1 });
      const deadline = Date.now() + 10_000;
      while (!started) {
        if (Date.now() > deadline) throw new Error('the handler did not start');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const firing = await cli([...base, 'cancel', 'payment', 'held', '--yes']);
      expect(firing.code).toBe(5);
      expect(firing.stderr).toContain('was firing');
      expect(await engine.get('payment', 'held')).toBeNull();
    } finally {
      release();
      await worker.stop({ drainMs: 5_000 });
    }
  });

  it('pauses and resumes a topic with --yes only, as the engine sees it', async () => {
    expect((await cli([...base, 'pause', 'ride'])).code).toBe(4);
    expect(await engine.paused('ride')).toBe(false);
    const paused = await cliJson<{ topic: string; paused: boolean; pausedAt: number }>([...base, 'pause', 'ride', '--yes']);
    expect(paused).toEqual({ topic: 'ride', paused: true, pausedAt: expect.any(Number) });
    expect(await engine.pauseState('ride')).toEqual(paused);
    expect((await cli([...base, 'resume', 'ride', '--shift'])).code).toBe(4);
    expect(await engine.paused('ride')).toBe(true);
    const resumed = await cli([...base, 'resume', 'ride', '--shift', '--yes']);
    expect(resumed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^resumed ride after \d+ ms, 0 due time\(s\) moved later\n$/) });
    expect(await engine.paused('ride')).toBe(false);
    expect(await cliJson([...base, 'resume', 'ride', '--yes'])).toEqual({ topic: 'ride', resumed: false, pausedMs: 0, shifted: 0 });
  });

  it('takes --slots for a topic the registry lacks, and refuses to guess', async () => {
    const unknown = await cli([...base, 'stats', 'parcel']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`not in the topic registry ${prefix}:topics`);
    expect(unknown.stderr).toContain('--slots');
    expect((await cliJson<{ slots: number }>([...base, 'stats', 'parcel', '--slots', '4'])).slots).toBe(4);
    const disagree = await cli([...base, 'pending', 'payment', '--slots', '4']);
    expect(disagree.code).toBe(2);
    expect(disagree.stderr).toContain('gives "payment" 8 slots');
    const empty = await cli(['--url', server.url, '--prefix', 'nothing-here', 'stats']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no topic registry at nothing-here:topics');
  });

  it('exits 2 on bad arguments, with commander naming the problem', async () => {
    expect((await cli([...base, 'frobnicate'])).code).toBe(2);
    const badLimit = await cli([...base, 'pending', 'payment', '--limit', 'lots']);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('--limit "lots" is not a whole number from 1 to 1000');
    expect((await cli([...base, 'inspect', 'payment'])).code).toBe(2);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
  });

  it('works under the least-privilege ACL user of aclRulesFor, and exits 6 when Redis refuses or is away', async () => {
    await admin.call('ACL', 'SETUSER', 'operator', 'on', '>op-secret', ...aclRulesFor(prefix).split(' '));
    const url = server.url.replace('redis://', 'redis://operator:op-secret@');
    const env = { REDIS_URL: url, DT_PREFIX: prefix };
    expect((await cliJson<{ topics: unknown[] }>(['stats'], env)).topics).toHaveLength(2);
    expect(await cliJson<unknown[]>(['pending', 'payment', '--limit', '2'], env)).toHaveLength(2);
    expect(await cliJson<unknown[]>(['dead', 'list', 'payment'], env)).toEqual([]);
    expect(await cliJson(['cancel', 'payment', 'order-28', '--yes'], env)).toMatchObject({ result: 'cancelled' });

    // A user of another prefix may not read this one's keys.
    await admin.call('ACL', 'SETUSER', 'stranger', 'on', '>x', ...aclRulesFor('other').split(' '));
    const denied = await cli(['stats'], { REDIS_URL: server.url.replace('redis://', 'redis://stranger:x@'), DT_PREFIX: prefix });
    expect(denied.code).toBe(6);
    expect(denied.stderr).toContain('aclRulesFor');
    // Where the rules are explained: a section that exists.
    expect(denied.stderr).toContain('docs/OPERATING.md#least-privilege');
    expect(readFileSync(new URL('../../../docs/OPERATING.md', import.meta.url), 'utf8')).toMatch(/^## Least privilege$/m);

    const wrongPassword = await cli(['stats'], { REDIS_URL: server.url.replace('redis://', 'redis://operator:nope@'), DT_PREFIX: prefix });
    expect(wrongPassword.code).toBe(6);
    expect(wrongPassword.stderr).not.toContain('nope');
    expect(wrongPassword.stderr).toContain('refused the login');
    const away = await cli(['--url', 'redis://127.0.0.1:1', '--timeout', '500', 'stats', '--json']);
    expect(away.code).toBe(6);
    expect(JSON.parse(away.stderr)).toMatchObject({ error: { name: 'RedisUnreachableError', exitCode: 6 } });
  });
});

describe('migrate-slots', () => {
  it('moves a topic to a new slot count once confirmed, and every timeout is still found', async () => {
    const own = `cli${randomUUID().slice(0, 8)}`;
    const producer = new DurableTimeouts({ connection: server.url, prefix: own, topics: { parcel: { slots: 4 } }, logger: null });
    for (let n = 0; n < 50; n++) await producer.schedule('parcel', `p-${n}`, { delayMs: 3_600_000 });
    await producer.stop();
    const args = ['--url', server.url, '--prefix', own];
    const unconfirmed = await cli([...args, 'migrate-slots', 'parcel', '16']);
    expect(unconfirmed.code).toBe(4);
    expect(unconfirmed.stderr).toContain('from 4 to 16 slots');
    expect(await admin.hget(`${own}:topics`, 'parcel')).toBe('4');
    const report = await cliJson<{ from: number; to: number; moved: number }>([...args, 'migrate-slots', 'parcel', '16', '--yes']);
    expect(report).toMatchObject({ from: 4, to: 16 });
    expect(report.moved).toBeGreaterThan(20);
    expect(await admin.hget(`${own}:topics`, 'parcel')).toBe('16');
    expect(await cliJson<{ slots: number; pending: number }>([...args, 'stats', 'parcel'])).toMatchObject({ slots: 16, pending: 50 });
    expect(await cliJson([...args, 'inspect', 'parcel', 'p-7'])).toMatchObject({ state: 'pending' });
    const notPowerOfTwo = await cli([...args, 'migrate-slots', 'parcel', '12', '--yes']);
    expect(notPowerOfTwo.code).toBe(2);
  });
});

describe('schedules', () => {
  it('lists the recurring schedules as schedules.list() reads them, payloads hidden unless asked, and changes nothing', async () => {
    const own = `cli${randomUUID().slice(0, 8)}`;
    const producer = new DurableTimeouts({ connection: server.url, prefix: own, topics: { schedules: { slots: 4 } }, logger: null });
    await producer.schedules.upsert('nightly-report', { cron: '0 2 * * *', timeZone: 'Europe/Berlin' });
    await producer.schedules.upsert('cache-refresh', { everyMs: 60_000, catchUp: 'skip', payload: { card: SECRET } });
    await producer.schedules.pause('nightly-report');
    const expected = await producer.schedules.list();
    await producer.stop();
    const args = ['--url', server.url, '--prefix', own];

    const listed = await cliJson<Array<Record<string, unknown>>>([...args, 'schedules']);
    expect(listed).toEqual(expected.map(({ payload: _hidden, ...rest }) => rest));
    expect(listed.map((info) => info['name'])).toEqual(['cache-refresh', 'nightly-report']);
    expect(await cliJson([...args, 'schedules', '--show-payloads'])).toEqual(expected);

    const table = await cli([...args, 'schedules']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^name\s+fires\s+catch-up\s+state\s+next$/m);
    // Its next occurrence is the next whole minute and nothing fires it here: the table comes a few
    // seconds after the upsert (the CLI runs three times first), so that minute may have passed
    // and the column then says overdue.
    expect(table.stdout).toMatch(/^cache-refresh\s+every 1 min 0 s\s+skip\s+pending\s+\S+Z\s+(?:in|overdue) \d[^\n]*$/m);
    expect(table.stdout).toMatch(/^nightly-report\s+0 2 \* \* \* \(Europe\/Berlin\)\s+once\s+pending, paused\s+\S+Z\s+in /m);
    expect(table.stdout).not.toContain(SECRET);
    expect((await cli([...args, 'schedules', '--show-payloads'])).stdout).toContain(SECRET);
    // Read-only: the schedules are as they were.
    const after = new DurableTimeouts({ connection: server.url, prefix: own, topics: { schedules: { slots: 4 } }, logger: null });
    expect(await after.schedules.list()).toEqual(expected);
    await after.stop();
  });

  it('exits 2 naming the registry when no engine of the prefix declared the schedules topic', async () => {
    const missing = await cli([...base, 'schedules']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Topic "schedules" is not in the topic registry ${prefix}:topics`);
  });
});

describe('encrypted payloads', () => {
  it('shows "encrypted" where the CLI, which has no keys, cannot decode a payload, and everything else as usual', async () => {
    const own = `cli${randomUUID().slice(0, 8)}`;
    const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });
    const producer = new DurableTimeouts({ connection: server.url, prefix: own, codec, topics: { vault: { slots: 2 } }, logger: null });
    await producer.schedule('vault', 'v-1', { delayMs: 3_600_000, payload: { card: SECRET } });
    await producer.stop();
    const args = ['--url', server.url, '--prefix', own, '--show-payloads'];
    const inspected = await cli([...args, 'inspect', 'vault', 'v-1']);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toMatch(/^state\s+pending$/m);
    expect(inspected.stdout).toMatch(/^payload\s+\(encrypted: encoded by a codec the CLI cannot decode\)$/m);
    expect(inspected.stdout).not.toContain(SECRET);
    expect(await cliJson([...args, 'inspect', 'vault', 'v-1'])).toMatchObject({ id: 'v-1', payload: null, payloadError: expect.stringContaining('encoded by a codec') });
    const listed = await cli([...args, 'pending', 'vault']);
    expect(listed.stdout).toMatch(/^v-1\s.*\(encrypted: encoded by a codec/m);
  });
});
