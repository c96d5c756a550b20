import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { monitorCommands, RedisServer, type CommandMonitor } from '@durable-timeout/redis-testing';
import { FEW_BUCKETS, loadScripts, type ScriptName } from '../src/commands/index.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { bucketOf, DATA_BUCKETS } from '../src/store/slot-of.js';
import type { ClaimedTimeout, SlotRef } from '../src/store/timeout-store.js';

/** One script call as MONITOR saw it. */
interface ScriptCall {
  file: string;
  keyCount: number;
}

let server: RedisServer;
let monitor: CommandMonitor | undefined;
const calls: ScriptCall[] = [];
const opened: RedisTimeoutStore[] = [];
const fileOfSha = new Map<string, string>();
/** The second line of each script (its summary), to recognise the EVAL that loads it (MONITOR escapes the text). */
const fileOfSummary = new Map<string, string>();
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

function fileOf(command: string, script: string): string {
  if (command === 'evalsha') return fileOfSha.get(script) ?? 'unknown';
  for (const [summary, file] of fileOfSummary) if (script.includes(summary)) return file;
  return 'unknown';
}

beforeAll(async () => {
  server = await RedisServer.start();
  for (const script of loadScripts().values()) {
    const name = script.name.replace(/Few$/, '');
    fileOfSha.set(sha1(script.lua), name);
    fileOfSummary.set(script.lua.split('\n')[1]!.trim(), name);
  }
  // A plain socket reads MONITOR (monitorCommands): ioredis' monitor mode loses its reply queue at times.
  monitor = await monitorCommands(server.port, server.host, ({ args }) => {
    const command = args[0]?.toLowerCase();
    if (command !== 'evalsha' && command !== 'eval') return;
    calls.push({ file: fileOf(command, args[1]!), keyCount: Number(args[2]) });
  });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

afterAll(async () => {
  monitor?.stop();
  await server?.stop();
});

function open(prefix: string): RedisTimeoutStore {
  const store = new RedisTimeoutStore({ connection: server.url, prefix });
  opened.push(store);
  return store;
}

/** Ids of `slot` whose data buckets are all different, `count` of them. */
function idsInDistinctBuckets(count: number, tag: string): string[] {
  const ids: string[] = [];
  const used = new Set<number>();
  for (let i = 0; ids.length < count; i++) {
    const id = `${tag}-${i}`;
    if (used.has(bucketOf(id))) continue;
    used.add(bucketOf(id));
    ids.push(id);
  }
  return ids;
}

/** The script calls MONITOR reports from now on, once `expected` of them arrived. */
async function callsDuring(expected: number, action: () => Promise<void>): Promise<ScriptCall[]> {
  const start = calls.length;
  await action();
  const deadline = Date.now() + 5_000;
  while (calls.length - start < expected) {
    if (Date.now() > deadline) throw new Error(`MONITOR saw ${calls.length - start} of ${expected} script calls`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return calls.slice(start);
}

const few = (file: ScriptName, fixed: number): ScriptCall => ({ file, keyCount: fixed + FEW_BUCKETS });
const every = (file: ScriptName, fixed: number): ScriptCall => ({ file, keyCount: fixed + DATA_BUCKETS });

describe('RedisTimeoutStore passes only the data buckets a call needs', () => {
  const slot: SlotRef = { topic: 'payment', slot: 0 };

  it('schedules, claims and acks of a few ids pass 8 bucket keys; larger calls, the first claim and a claim after a backlog pass all 128', async () => {
    const store = open(`k${randomUUID().slice(0, 8)}`);
    const now = await store.now();
    const [dueSoon, ...later] = idsInDistinctBuckets(21, 'order');

    expect(await callsDuring(1, () => store.writes.schedule(slot, dueSoon!, { at: now - 5, payload: '"soon"' }).then(() => undefined))).toEqual([
      few('schedule', 4),
    ]);
    expect(
      await callsDuring(1, async () => {
        await Promise.all(later.map((id) => store.writes.schedule(slot, id, { at: now + 60_000, payload: 'null' })));
      }),
    ).toEqual([every('schedule', 4)]);

    let claimed: ClaimedTimeout[] = [];
    const firstClaim = await callsDuring(1, async () => {
      claimed = (await store.deliveries.claim(slot, 10, 60_000)).claimed;
    });
    expect(firstClaim).toEqual([every('claim', 6)]);
    expect(claimed.map((entry) => entry.id)).toEqual([dueSoon]);

    expect(await callsDuring(1, async () => void (await store.deliveries.claim(slot, 10, 60_000)))).toEqual([few('claim', 6)]);
    expect(await callsDuring(1, async () => void (await store.deliveries.ackMany(slot, claimed)))).toEqual([few('ackMany', 2)]);

    // A backlog: 20 due at once in 20 buckets. The claim with the 8 reported buckets finds ids
    // outside them and changes nothing, the claim with every bucket takes them.
    const backlog = idsInDistinctBuckets(40, 'late').slice(20);
    expect(
      await callsDuring(1, async () => {
        await Promise.all(backlog.map((id) => store.writes.schedule(slot, id, { at: now - 1, payload: 'null' })));
      }),
    ).toEqual([every('schedule', 4)]);
    const claimCalls = await callsDuring(2, async () => {
      claimed = (await store.deliveries.claim(slot, 20, 60_000)).claimed;
    });
    expect(claimCalls).toEqual([few('claim', 6), every('claim', 6)]);
    expect(claimed.map((entry) => entry.id).sort()).toEqual([...backlog].sort());
    expect(await callsDuring(1, async () => void (await store.deliveries.ackMany(slot, claimed)))).toEqual([every('ackMany', 2)]);
    // That batch was full: the next claim passes every bucket again.
    expect(await callsDuring(1, async () => void (await store.deliveries.claim(slot, 20, 60_000)))).toEqual([every('claim', 6)]);
  });

  it('counts a batch the late policy refused as full: the next claim of the backlog passes every bucket at once', async () => {
    const store = open(`k${randomUUID().slice(0, 8)}`);
    const now = await store.now();
    const overdue = idsInDistinctBuckets(30, 'overdue');
    await callsDuring(1, async () => void (await store.writes.scheduleMany(slot, overdue.map((id) => ({ id, entry: { at: now - 60_000, payload: 'null' } })))));
    const skip = { afterMs: 1_000, action: 'skip' } as const;
    const first = await callsDuring(1, async () => void (await store.deliveries.claim(slot, 10, 60_000, undefined, skip)));
    expect(first).toEqual([every('claim', 6)]);
    // Ten refused, none claimed: still a full batch, so no `few` call that would have to be made again.
    expect(await callsDuring(1, async () => void (await store.deliveries.claim(slot, 10, 60_000, undefined, skip)))).toEqual([every('claim', 6)]);
  });

  it('a claim whose reported buckets went stale (a peer scheduled ahead, a lease expired) still claims everything due, in order', async () => {
    const prefix = `k${randomUUID().slice(0, 8)}`;
    const store = open(prefix);
    const peer = open(prefix);
    const now = await store.now();
    const ids = idsInDistinctBuckets(30, 'ride');
    await Promise.all(ids.slice(0, 10).map((id, i) => store.writes.schedule(slot, id, { at: now + 60_000 + i, payload: 'null' })));
    expect((await store.deliveries.claim(slot, 10, 60_000)).claimed).toEqual([]);

    // Due now, in buckets the last claim did not report, scheduled by another store.
    const ahead = ids.slice(20, 23);
    for (const [i, id] of ahead.entries()) await peer.writes.schedule(slot, id, { at: now - 10 + i, payload: `"${id}"` });
    const first = await store.deliveries.claim(slot, 10, 150);
    expect(first.claimed.map((entry) => [entry.id, entry.payload])).toEqual(ahead.map((id) => [id, `"${id}"`]));

    // Their leases run out: the next claim needs their buckets to return them to due.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = await store.deliveries.claim(slot, 10, 60_000, { maxAttempts: 16, backoff: { baseMs: 0, capMs: 0 } });
    expect(again.recovered).toBe(3);
    expect(again.claimed.map((entry) => [entry.id, entry.attempt])).toEqual(ahead.map((id) => [id, 2]));
    expect(await store.deliveries.ackMany(slot, again.claimed)).toEqual(['acked', 'acked', 'acked']);
    expect(await store.reads.get(slot, ahead[0]!)).toBeNull();
    expect(await store.reads.get(slot, ids[0]!)).toMatchObject({ state: 'pending', attempt: 0 });
  });
});
