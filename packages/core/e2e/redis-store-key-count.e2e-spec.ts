import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { monitorCommands, RedisServer, type CommandMonitor } from '@durable-timeout/redis-testing';
import { FEW_BUCKETS, loadScripts, type ScriptName } from '../src/commands/index.js';
import { RedisTimeoutStore } from '../src/store/redis-timeout-store.js';
import { bucketOf, DATA_BUCKETS } from '../src/store/slot-of.js';
import type { ClaimedTimeout, ClaimResult, SlotRef } from '../src/store/timeout-store.js';
import { TimeoutKeys } from '../src/store/timeout-keys.js';
import { Redis } from 'ioredis';

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

/**
 * What a claim answers that does not depend on the moment it ran (`now`, lease ends, schedule
 * times, fencing tokens: they start from the Redis clock): whether its tokens grow, not their values.
 */
function sameEverywhere(result: ClaimResult): unknown {
  const tokens = result.claimed.map((entry) => entry.fencingToken);
  return {
    tokensGrow: tokens.every((token, i) => token > 0 && (i === 0 || token > tokens[i - 1]!)),
    claimed: result.claimed.map(({ id, dueAt, attempt, payload }) => ({ id, dueAt, attempt, payload })),
    incidents: result.incidents.map(({ id, kind, attempts }) => ({ id, kind, attempts })),
    nextDueAt: result.nextDueAt,
    recovered: result.recovered,
    paused: result.paused ?? false,
  };
}

describe('RedisTimeoutStore on one server sends the claims and acks of several slots made in one turn as one script call', () => {
  const refs: SlotRef[] = [0, 1, 2, 3, 4, 5].map((n) => ({ topic: 'payment', slot: n }));

  async function fill(store: RedisTimeoutStore, now: number): Promise<void> {
    for (const [i, ref] of refs.entries()) {
      const items = Array.from({ length: i }, (_, k) => ({ id: `s${i}-${k}`, entry: { at: now - 50 + k, payload: `"${i}-${k}"` } }));
      items.push({ id: `s${i}-later`, entry: { at: now + 60_000 + i, payload: 'null' } });
      await store.writes.scheduleMany(ref, items);
    }
  }

  it('claims of six slots: one claimMany call, and each slot gets what its own claim gets', async () => {
    const together = open(`k${randomUUID().slice(0, 8)}`);
    const alone = open(`k${randomUUID().slice(0, 8)}`);
    const now = await together.now();
    // Every call before the one measured is seen first (MONITOR reports a little after the reply).
    await callsDuring(2 * refs.length + 2, async () => {
      await fill(together, now);
      await fill(alone, now);
      await together.reads.pause(refs[5]!);
      await alone.reads.pause(refs[5]!);
    });

    let gathered: ClaimResult[] = [];
    const seen = await callsDuring(1, async () => {
      gathered = await Promise.all(refs.map((ref) => together.deliveries.claim(ref, 10, 60_000)));
    });
    // First claims of a slot pass every bucket: 6 fixed keys and 128 buckets per slot.
    expect(seen).toEqual([{ file: 'claimMany', keyCount: refs.length * (6 + DATA_BUCKETS) }]);
    const separate: ClaimResult[] = [];
    const apart = await callsDuring(refs.length, async () => {
      for (const ref of refs) separate.push(await alone.deliveries.claim(ref, 10, 60_000));
    });
    expect(apart.map((call) => call.file)).toEqual(refs.map(() => 'claim'));
    expect(gathered.map(sameEverywhere)).toEqual(separate.map(sameEverywhere));
    expect(gathered.map((result) => result.claimed.length)).toEqual([0, 1, 2, 3, 4, 0]);

    // Acks of two slots and claims of two others (now with the few buckets the last claims named): one call.
    let acks: unknown[] = [];
    const mixed = await callsDuring(1, async () => {
      acks = await Promise.all([
        together.deliveries.ackMany(refs[1]!, gathered[1]!.claimed),
        together.deliveries.ackMany(refs[2]!, [{ ...gathered[2]!.claimed[0]!, fencingToken: 1 }]),
        together.deliveries.claim(refs[3]!, 10, 60_000),
        together.deliveries.claim(refs[4]!, 10, 60_000),
      ]);
    });
    expect(mixed).toEqual([{ file: 'claimMany', keyCount: 2 * (2 + FEW_BUCKETS) + 2 * (6 + FEW_BUCKETS) }]);
    expect(acks.slice(0, 2)).toEqual([['acked'], ['stale']]);
    expect((acks.slice(2) as ClaimResult[]).map((result) => result.claimed)).toEqual([[], []]);
    expect(await together.reads.get(refs[1]!, 's1-0')).toBeNull();
    expect(await together.reads.get(refs[2]!, 's2-0')).toMatchObject({ state: 'firing' });
  });

  it('the claims of one call deal with at most as many expired leases together as one claim may (the rest on the next claims)', async () => {
    const store = open(`k${randomUUID().slice(0, 8)}`);
    const now = await store.now();
    const slots = refs.slice(0, 3);
    // 600 leases per slot, each ending 1 ms after its claim: 1,800 expired leases over three slots.
    for (const ref of slots) {
      await store.writes.scheduleMany(ref, Array.from({ length: 600 }, (_, k) => ({ id: `x${ref.slot}-${k}`, entry: { at: now - 1, payload: 'null' } })));
      expect((await store.deliveries.claim(ref, 600, 1)).claimed).toHaveLength(600);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const first = await Promise.all(slots.map((ref) => store.deliveries.claim(ref, 10, 60_000)));
    expect(first.reduce((total, result) => total + result.recovered, 0)).toBe(1_000);
    let recovered = first.reduce((total, result) => total + result.recovered, 0);
    for (let round = 0; round < 3 && recovered < 1_800; round++) {
      const next = await Promise.all(slots.map((ref) => store.deliveries.claim(ref, 10, 60_000)));
      recovered += next.reduce((total, result) => total + result.recovered, 0);
    }
    expect(recovered).toBe(1_800);
  });

  it('a slot whose part fails fails alone: the other slots of the call get their claims', async () => {
    const prefix = `k${randomUUID().slice(0, 8)}`;
    const store = open(prefix);
    const now = await store.now();
    await fill(store, now);
    // A key of the wrong type where slot 2's due set should be: its part raises WRONGTYPE.
    const raw = new Redis(server.url);
    try {
      const due = new TimeoutKeys(prefix).slot('payment', 2).due;
      await raw.del(due);
      await raw.set(due, 'not a sorted set');
    } finally {
      raw.disconnect();
    }
    const settled = await Promise.allSettled(refs.slice(0, 4).map((ref) => store.deliveries.claim(ref, 10, 60_000)));
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    expect((settled[3] as PromiseFulfilledResult<ClaimResult>).value.claimed.map((entry) => entry.id)).toEqual(['s3-0', 's3-1', 's3-2']);
  });
});
