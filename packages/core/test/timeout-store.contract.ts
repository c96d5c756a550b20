/// <reference types="jest" />
import type { LeaseExpiryPolicy, SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { LEASE_EXPIRED_ERROR } from '../src/store/stored-error.js';
import { bucketOf } from '../src/store/slot-of.js';
import { waitUntil } from '@durable-timeout/redis-testing';
import { storeContractFrame } from './contract-frame.js';
import { describeScheduleModesContract } from './schedule-modes.contract.js';
import { describeBulkCallsContract } from './bulk-calls.contract.js';
import { describeLeaseRenewalContract } from './lease-renewal.contract.js';
import { describeAckNextContract } from './ack-next.contract.js';
import { describeFlowControlContract } from './flow-control.contract.js';

/** What one contract test gets from the store under test. */
export interface StoreContractContext {
  /** A fresh, empty store (its own key prefix or its own memory). */
  store: TimeoutStore;
  /**
   * A second store on the same data, as another process would open it (Redis: a second
   * connection). A store without such a notion may return `store` itself.
   */
  openPeer(): Promise<TimeoutStore>;
  /** Lets `ms` of store time pass: Redis really waits, a manual clock advances. */
  advance(ms: number): Promise<void>;
  /** Closes everything the context opened (peers included). */
  dispose(): Promise<void>;
}

const LONG = 60_000;
/** A lease or delay that ends within the test; long enough that a loaded machine does not outrun it. */
const SHORT = 150;
/** Store time to let pass so that `SHORT` has surely ended. */
const PAST_SHORT = 200;
/** An expired lease is retried at once (no backoff), for tests that re-claim right after it. */
const RETRY_AT_ONCE: LeaseExpiryPolicy = { maxAttempts: 16, backoff: { baseMs: 0, capMs: 0 } };

/** `count` ids in distinct data buckets, in increasing bucket order. */
function idsInBuckets(count: number): { id: string; bucket: number }[] {
  const byBucket = new Map<number, string>();
  for (let i = 0; byBucket.size < count * 8; i++) byBucket.set(bucketOf(`bucketed-${i}`), `bucketed-${i}`);
  const buckets = [...byBucket.keys()].sort((a, b) => a - b);
  return Array.from({ length: count }, (_, i) => {
    const bucket = buckets[i * 4]!;
    return { id: byBucket.get(bucket)!, bucket };
  });
}

/**
 * The behaviour every `TimeoutStore` must have, as a Jest suite. Call it from a spec file with a
 * factory of fresh stores; it declares its own `describe`. Lease and delay values are tens of
 * milliseconds so it runs quickly against a real Redis.
 */
export function describeTimeoutStoreContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describeScheduleModesContract(name, makeContext);
  describeBulkCallsContract(name, makeContext);
  describeLeaseRenewalContract(name, makeContext);
  describeAckNextContract(name, makeContext);
  describeFlowControlContract(name, makeContext);
  describe(`TimeoutStore contract: ${name}`, () => {
    let context: StoreContractContext;
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 3 };
    const otherSlot: SlotRef = { topic: 'payment', slot: 5 };

    storeContractFrame(
      makeContext,
      (made) => {
        context = made;
        store = made.store;
      },
      [{ name: 'payment', slots: 16 }, { name: 'ride', slots: 1 }],
    );

    /** Schedules `id` due already (absolute time in the past) and returns its due time. */
    async function scheduleDue(id: string, payload = '{"n":1}', at?: number): Promise<number> {
      const dueAt = at ?? (await store.now()) - 1;
      const result = await store.writes.schedule(slot, id, { at: dueAt, payload });
      return result.dueAt;
    }

    describe('roles', () => {
      // Every role the engine hands to one of its parts, with every method of the port.
      const ROLES = {
        writes: ['schedule', 'scheduleMany', 'cancel', 'cancelMany'],
        deliveries: ['claim', 'ack', 'ackMany', 'renewLeases', 'fail', 'release'],
        reads: ['get', 'stats', 'listPending', 'listDead', 'replayDead', 'purgeDead', 'pause', 'pauseState', 'resume'],
        layout: ['readLayout', 'claimLayout', 'beginMigration', 'finishMigration', 'markSlot', 'bucketIds', 'exportEntries', 'importEntries', 'dropEntries', 'unimportEntries'],
      } as const;

      it('exposes each role as an object of its own with every method, and its life on the store', () => {
        for (const [role, methods] of Object.entries(ROLES)) {
          const calls = store[role as keyof typeof ROLES] as unknown as Record<string, unknown>;
          expect({ role, type: typeof calls }).toEqual({ role, type: 'object' });
          expect({ role, missing: methods.filter((method) => typeof calls[method] !== 'function') }).toEqual({ role, missing: [] });
        }
        expect(['init', 'now', 'subscribe', 'ping', 'close'].filter((method) => typeof store[method as keyof TimeoutStore] !== 'function')).toEqual([]);
      });

      it('serves each role through its own object: a role handed out alone works without its store', async () => {
        const { writes, reads, deliveries } = store;
        const { dueAt } = await writes.schedule(slot, 'role-alone', { at: (await store.now()) - 1, payload: '"r"' });
        expect(await reads.get(slot, 'role-alone')).toMatchObject({ state: 'pending', dueAt });
        const [claimed] = (await deliveries.claim(slot, 1, LONG)).claimed;
        expect(await deliveries.ack(slot, 'role-alone', claimed!.fencingToken)).toBe('acked');
        expect(await store.layout.readLayout('never-used')).toBeNull();
      });
    });

    describe('schedule and get', () => {
      it('creates a pending timeout due after the delay on the store clock', async () => {
        const before = await store.now();
        const result = await store.writes.schedule(slot, 'order-1', { delayMs: LONG, payload: '{"amount":42}' });
        const after = await store.now();
        expect(result.outcome).toBe('created');
        expect(result.dueAt).toBeGreaterThanOrEqual(before + LONG);
        expect(result.dueAt).toBeLessThanOrEqual(after + LONG);
        const stored = await store.reads.get(slot, 'order-1');
        expect(stored).toMatchObject({ id: 'order-1', state: 'pending', dueAt: result.dueAt, attempt: 0, payload: '{"amount":42}' });
        expect(stored!.scheduledAt).toBeGreaterThanOrEqual(before);
        expect(stored!.scheduledAt).toBeLessThanOrEqual(after);
        expect(stored!.lastError).toBeUndefined();
      });

      it('takes `at` as an absolute due time', async () => {
        const at = (await store.now()) + 12_345;
        const result = await store.writes.schedule(slot, 'abs', { at, payload: 'null' });
        expect(result.dueAt).toBe(at);
        expect((await store.reads.get(slot, 'abs'))!.dueAt).toBe(at);
      });

      it('is an upsert: the last call wins for due time and payload', async () => {
        await store.writes.schedule(slot, 'order-1', { delayMs: LONG, payload: '"first"' });
        const second = await store.writes.schedule(slot, 'order-1', { delayMs: 2 * LONG, payload: '"second"' });
        expect(second.outcome).toBe('replaced');
        const stored = await store.reads.get(slot, 'order-1');
        expect(stored).toMatchObject({ state: 'pending', dueAt: second.dueAt, payload: '"second"' });
        const third = await store.writes.schedule(slot, 'order-1', { at: (await store.now()) - 1, payload: '"third"' });
        expect(third.outcome).toBe('replaced');
        const claim = await store.deliveries.claim(slot, 10, LONG);
        expect(claim.claimed.map((entry) => [entry.id, entry.payload])).toEqual([['order-1', '"third"']]);
      });

      it('returns null for an unknown id and keeps slots and topics apart', async () => {
        await store.writes.schedule(slot, 'same-id', { delayMs: LONG, payload: '"a"' });
        expect(await store.reads.get(slot, 'other')).toBeNull();
        expect(await store.reads.get(otherSlot, 'same-id')).toBeNull();
        expect(await store.reads.get({ topic: 'ride', slot: 3 }, 'same-id')).toBeNull();
        const other = await store.writes.schedule({ topic: 'ride', slot: 3 }, 'same-id', { delayMs: LONG, payload: '"b"' });
        expect(other.outcome).toBe('created');
        expect((await store.reads.get(slot, 'same-id'))!.payload).toBe('"a"');
      });

      it('stores ids with braces, colons and unicode, and payloads with any text', async () => {
        const ids = ['{payment:3}', 'a}b{c', 'x:y:z', 'ünï-çødé-订单-🚕', '|,|', ' spaced id ', '{'.repeat(256) + ':}'.repeat(128)];
        expect(ids.at(-1)).toHaveLength(512);
        const payload = JSON.stringify({ text: 'pipe | comma , brace { } 🚕', nested: [1, { a: null }] });
        for (const id of ids) expect((await store.writes.schedule(slot, id, { at: (await store.now()) - 1, payload })).outcome).toBe('created');
        for (const id of ids) expect(await store.reads.get(slot, id)).toMatchObject({ id, state: 'pending', payload });
        const claim = await store.deliveries.claim(slot, 100, LONG);
        expect(claim.claimed.map((entry) => entry.id).sort()).toEqual([...ids].sort());
        for (const entry of claim.claimed) expect(entry.payload).toBe(payload);
        const acks = await store.deliveries.ackMany(slot, claim.claimed.map(({ id, fencingToken }) => ({ id, fencingToken })));
        expect(acks).toEqual(ids.map(() => 'acked'));
        for (const id of ids) expect(await store.reads.get(slot, id)).toBeNull();
        expect(await store.writes.cancel(slot, '{payment:3}')).toBe('not_found');
      });
      it('keeps crafted ids and payloads as plain data (no prototype pollution)', async () => {
        const ids = ['__proto__', 'constructor', 'hasOwnProperty', 'prototype'];
        const payload = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
        for (const id of ids) await scheduleDue(id, payload);
        for (const id of ids) expect(await store.reads.get(slot, id)).toMatchObject({ id, state: 'pending', payload });
        const { claimed } = await store.deliveries.claim(slot, 10, LONG);
        expect(claimed.map((entry) => entry.id).sort()).toEqual([...ids].sort());
        for (const entry of claimed) expect(entry.payload).toBe(payload);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(await store.deliveries.ackMany(slot, claimed.map(({ id, fencingToken }) => ({ id, fencingToken })))).toEqual(ids.map(() => 'acked'));
      });
    });

    describe('order of calls on one id', () => {
      it('takes effect in the order the calls were made, even when a call is not awaited before the next', async () => {
        const scheduled = store.writes.schedule(slot, 'o1', { delayMs: LONG, payload: '"first"' });
        const cancelled = store.writes.cancel(slot, 'o1');
        const afterCancel = store.reads.get(slot, 'o1');
        const again = store.writes.schedule(slot, 'o1', { delayMs: LONG, payload: '"second"' });
        const read = store.reads.get(slot, 'o1');
        expect((await scheduled).outcome).toBe('created');
        expect(await cancelled).toBe('cancelled');
        expect(await afterCancel).toBeNull();
        expect((await again).outcome).toBe('created');
        expect(await read).toMatchObject({ state: 'pending', payload: '"second"' });
      });
    });

    describe('cancel', () => {
      it('cancels a pending timeout, which then never fires', async () => {
        await scheduleDue('c1');
        expect(await store.writes.cancel(slot, 'c1')).toBe('cancelled');
        expect(await store.reads.get(slot, 'c1')).toBeNull();
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect(await store.writes.cancel(slot, 'c1')).toBe('not_found');
      });

      it('says firing for a claimed timeout and removes it: its delivery is refused everything, nothing retries it', async () => {
        await scheduleDue('c2');
        const [claimed] = (await store.deliveries.claim(slot, 10, SHORT, RETRY_AT_ONCE)).claimed;
        const token = claimed!.fencingToken;
        expect(await store.writes.cancel(slot, 'c2')).toBe('firing');
        expect(await store.reads.get(slot, 'c2')).toBeNull();
        expect(await store.deliveries.ack(slot, 'c2', token)).toBe('stale');
        expect(await store.deliveries.fail(slot, 'c2', token, { error: 'boom', retryDelayMs: 0, maxAttempts: 5 })).toEqual({ outcome: 'stale' });
        expect(await store.deliveries.fail(slot, 'c2', token, { error: 'boom', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
        expect(await store.deliveries.renewLeases(slot, [{ id: 'c2', fencingToken: token, leaseMs: LONG }])).toEqual(['stale']);
        expect(await store.deliveries.release(slot, [{ id: 'c2', fencingToken: token }])).toEqual({ released: 0, forwarded: [] });
        // Its lease would have ended by now: nothing is left to retry or dead-letter.
        await context.advance(PAST_SHORT);
        const later = await store.deliveries.claim(slot, 10, LONG, RETRY_AT_ONCE);
        expect(later.claimed).toEqual([]);
        expect(later.incidents).toEqual([]);
        expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 0, dead: 0 });
        expect(await store.writes.cancel(slot, 'c2')).toBe('not_found');
      });

      it('says not_found for unknown ids and dead letters', async () => {
        expect(await store.writes.cancel(slot, 'nobody')).toBe('not_found');
        await scheduleDue('c3');
        const [claimed] = (await store.deliveries.claim(slot, 10, LONG)).claimed;
        await store.deliveries.fail(slot, 'c3', claimed!.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 1 });
        expect(await store.writes.cancel(slot, 'c3')).toBe('not_found');
        expect((await store.reads.get(slot, 'c3'))!.state).toBe('dead');
      });
    });

    describe('claim', () => {
      it('answers claims and acks of several slots made together each for its own slot (one Redis server: one script call)', async () => {
        const now = await store.now();
        const refs: SlotRef[] = [0, 1, 2, 6].map((n) => ({ topic: 'payment', slot: n }));
        for (const [i, ref] of refs.entries()) {
          const due = Array.from({ length: i + 1 }, (_, k) => ({ id: `multi-${i}-${k}`, entry: { at: now - 10 + k, payload: `"${i}-${k}"` } }));
          await store.writes.scheduleMany(ref, [...due, { id: `multi-later-${i}`, entry: { at: now + LONG + i, payload: 'null' } }]);
        }
        await store.reads.pause({ topic: 'payment', slot: 6 });
        const results = await Promise.all(refs.map((ref) => store.deliveries.claim(ref, 10, LONG)));
        results.slice(0, 3).forEach((result, i) => {
          expect(result.claimed.map((entry) => [entry.id, entry.payload, entry.attempt, entry.dueAt])).toEqual(
            Array.from({ length: i + 1 }, (_, k) => [`multi-${i}-${k}`, `"${i}-${k}"`, 1, now - 10 + k]),
          );
          expect(result.nextDueAt).toBe(now + LONG + i);
          expect(result.paused).toBeFalsy();
        });
        // The paused slot claims nothing, beside the others.
        expect(results[3]).toMatchObject({ claimed: [], paused: true });

        // Acks of some slots (one of them stale) and claims of others, together.
        const [firstAcks, secondAcks, ...claims] = await Promise.all([
          store.deliveries.ackMany(refs[0]!, results[0]!.claimed),
          store.deliveries.ackMany(refs[1]!, [results[1]!.claimed[0]!, { ...results[1]!.claimed[1]!, fencingToken: results[1]!.claimed[1]!.fencingToken + 1000 }]),
          store.deliveries.claim(refs[1]!, 10, LONG),
          store.deliveries.claim(refs[2]!, 10, LONG),
        ]);
        expect([firstAcks, secondAcks]).toEqual([['acked'], ['acked', 'stale']]);
        for (const claim of claims) expect(claim.claimed).toEqual([]);
        expect(await store.reads.get(refs[0]!, 'multi-0-0')).toBeNull();
        expect(await store.reads.get(refs[1]!, 'multi-1-1')).toMatchObject({ state: 'firing' });
      });

      it('claims only due timeouts, oldest first, up to the limit, and reports the next due time', async () => {
        const now = await store.now();
        await scheduleDue('late', '"l"', now - 10);
        await scheduleDue('early', '"e"', now - 30);
        await scheduleDue('middle', '"m"', now - 20);
        const future = await store.writes.schedule(slot, 'future', { delayMs: LONG, payload: '"f"' });
        const first = await store.deliveries.claim(slot, 2, LONG);
        expect(first.claimed.map((entry) => entry.id)).toEqual(['early', 'middle']);
        expect(first.claimed[0]).toMatchObject({ dueAt: now - 30, attempt: 1, payload: '"e"' });
        expect(first.nextDueAt).toBe(now - 10);
        expect(first.now).toBeGreaterThanOrEqual(now);
        expect(first.recovered).toBe(0);
        const second = await store.deliveries.claim(slot, 10, LONG);
        expect(second.claimed.map((entry) => entry.id)).toEqual(['late']);
        expect(second.nextDueAt).toBe(future.dueAt);
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect((await store.reads.get(slot, 'early'))!.state).toBe('firing');
      });

      it('reports no next due time for an empty slot', async () => {
        const result = await store.deliveries.claim(otherSlot, 10, LONG);
        expect(result).toMatchObject({ claimed: [], nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null });
      });

      it('reports the earliest lease expiry left in the slot, its own new leases included', async () => {
        await scheduleDue('held-1');
        const first = await store.deliveries.claim(slot, 10, 5_000);
        expect(first.nextLeaseExpiresAt).toBe(first.now + 5_000);
        expect(first.nextDueAt).toBeNull();
        await scheduleDue('held-2');
        const second = await store.deliveries.claim(slot, 10, LONG);
        expect(second.claimed.map((entry) => entry.id)).toEqual(['held-2']);
        expect(second.nextLeaseExpiresAt).toBe(first.now + 5_000);
        expect(await store.deliveries.ack(slot, 'held-1', first.claimed[0]!.fencingToken)).toBe('acked');
        expect((await store.deliveries.claim(slot, 10, LONG)).nextLeaseExpiresAt).toBe(second.now + LONG);
        expect((await store.deliveries.claim(otherSlot, 10, LONG)).nextLeaseExpiresAt).toBeNull();
      });

      it('reports no lease expiry once the expired leases were recovered', async () => {
        const dueAt = await scheduleDue('lapsed');
        const first = await store.deliveries.claim(slot, 10, SHORT);
        expect(first.nextLeaseExpiresAt).toBe(first.now + SHORT);
        await context.advance(PAST_SHORT);
        const recovery = await store.deliveries.claim(slot, 0, LONG, RETRY_AT_ONCE);
        expect(recovery).toMatchObject({ recovered: 1, nextDueAt: recovery.now, nextLeaseExpiresAt: null });
        expect(recovery.now).toBeGreaterThan(dueAt);
      });

      it('gives claimed timeouts a lease and fencing tokens that differ', async () => {
        await scheduleDue('f1');
        await scheduleDue('f2');
        const { claimed, now } = await store.deliveries.claim(slot, 10, 5_000);
        expect(new Set(claimed.map((entry) => entry.fencingToken)).size).toBe(2);
        const stored = await store.reads.get(slot, 'f1');
        expect(stored).toMatchObject({ state: 'firing', attempt: 1 });
        expect(stored!.leaseExpiresAt).toBe(now + 5_000);
        expect(stored!.fencingToken).toBe(claimed.find((entry) => entry.id === 'f1')!.fencingToken);
      });

      it('never hands one timeout to two concurrent claimers', async () => {
        const peer = await context.openPeer();
        const ids = Array.from({ length: 120 }, (_, i) => `race-${i}`);
        const at = (await store.now()) - 1;
        await Promise.all(ids.map((id) => store.writes.schedule(slot, id, { at, payload: 'null' })));
        const seen: string[] = [];
        const drain = async (claimer: TimeoutStore) => {
          for (;;) {
            const { claimed } = await claimer.deliveries.claim(slot, 7, LONG);
            if (claimed.length === 0) return;
            seen.push(...claimed.map((entry) => entry.id));
          }
        };
        await Promise.all([drain(store), drain(peer), drain(store), drain(peer)]);
        expect(seen.length).toBe(ids.length);
        expect(new Set(seen).size).toBe(ids.length);
      });

      it('counts an expired lease as a failed attempt: retried at once without backoff, attempt kept, with a greater token', async () => {
        await scheduleDue('lease-1');
        const first = (await store.deliveries.claim(slot, 10, SHORT)).claimed[0]!;
        expect((await store.deliveries.claim(slot, 10, SHORT)).claimed).toEqual([]);
        await context.advance(PAST_SHORT);
        const second = await store.deliveries.claim(slot, 10, LONG, RETRY_AT_ONCE);
        expect(second.recovered).toBe(1);
        expect(second.incidents).toEqual([{ id: 'lease-1', kind: 'lease_retried', attempts: 1, at: second.now, error: LEASE_EXPIRED_ERROR }]);
        expect(second.claimed).toHaveLength(1);
        expect(second.claimed[0]).toMatchObject({ id: 'lease-1', dueAt: second.now, attempt: 2 });
        expect(second.claimed[0]!.fencingToken).toBeGreaterThan(first.fencingToken);
        expect(second.claimed[0]!.scheduledAt).toBe(first.scheduledAt);
      });

      it('retries an expired lease after the backoff of its attempt (equal jitter), keeping the lease error', async () => {
        await scheduleDue('lease-2', '"kept"');
        const first = (await store.deliveries.claim(slot, 10, SHORT)).claimed[0]!;
        await context.advance(PAST_SHORT);
        const policy: LeaseExpiryPolicy = { maxAttempts: 5, backoff: { baseMs: 40_000, capMs: 600_000 } };
        const recovery = await store.deliveries.claim(slot, 0, LONG, policy);
        expect(recovery).toMatchObject({ claimed: [], recovered: 1 });
        const [incident] = recovery.incidents;
        expect(incident).toMatchObject({ id: 'lease-2', kind: 'lease_retried', attempts: 1, error: LEASE_EXPIRED_ERROR });
        expect(incident!.at).toBeGreaterThanOrEqual(recovery.now + 20_000);
        expect(incident!.at).toBeLessThanOrEqual(recovery.now + 40_000);
        expect(recovery.nextDueAt).toBe(incident!.at);
        const stored = await store.reads.get(slot, 'lease-2');
        expect(stored).toMatchObject({ state: 'pending', dueAt: incident!.at, attempt: 1, scheduledAt: first.scheduledAt, payload: '"kept"' });
        expect(stored!.lastError).toBe(LEASE_EXPIRED_ERROR);
        expect(stored!.leaseExpiresAt).toBeUndefined();
        expect(await store.deliveries.ack(slot, 'lease-2', first.fencingToken)).toBe('stale');
        expect(await store.writes.cancel(slot, 'lease-2')).toBe('cancelled');
      });

      it('dead-letters an expired lease on its last attempt', async () => {
        await scheduleDue('lease-3', '"last"');
        const policy: LeaseExpiryPolicy = { maxAttempts: 2, backoff: { baseMs: 0, capMs: 0 } };
        const first = (await store.deliveries.claim(slot, 10, SHORT, policy)).claimed[0]!;
        await context.advance(PAST_SHORT);
        const second = (await store.deliveries.claim(slot, 10, SHORT, policy)).claimed[0]!;
        expect(second).toMatchObject({ id: 'lease-3', attempt: 2 });
        await context.advance(PAST_SHORT);
        const third = await store.deliveries.claim(slot, 10, SHORT, policy);
        expect(third.claimed).toEqual([]);
        expect(third.incidents).toEqual([{ id: 'lease-3', kind: 'lease_dead', attempts: 2, at: third.now, error: LEASE_EXPIRED_ERROR }]);
        expect(await store.reads.get(slot, 'lease-3')).toMatchObject({ state: 'dead', attempt: 2, lastError: LEASE_EXPIRED_ERROR, payload: '"last"' });
        const [letter] = await store.reads.listDead(slot, 0, 10);
        expect(letter).toMatchObject({ id: 'lease-3', attempts: 2, lastError: LEASE_EXPIRED_ERROR, deadAt: third.now, scheduledAt: first.scheduledAt });
        expect(await store.deliveries.ack(slot, 'lease-3', second.fencingToken)).toBe('stale');
        expect(await store.writes.cancel(slot, 'lease-3')).toBe('not_found');
      });
    });

    describe('ack', () => {
      it('removes a fired timeout when the token is current', async () => {
        await scheduleDue('a1');
        const [claimed] = (await store.deliveries.claim(slot, 10, LONG)).claimed;
        expect(await store.deliveries.ack(slot, 'a1', claimed!.fencingToken)).toBe('acked');
        expect(await store.reads.get(slot, 'a1')).toBeNull();
        expect(await store.deliveries.ack(slot, 'a1', claimed!.fencingToken)).toBe('stale');
      });

      it('changes nothing with a stale token (lease expired and re-claimed)', async () => {
        await scheduleDue('a2');
        const stale = (await store.deliveries.claim(slot, 10, SHORT)).claimed[0]!;
        await context.advance(PAST_SHORT);
        const fresh = (await store.deliveries.claim(slot, 10, LONG, RETRY_AT_ONCE)).claimed[0]!;
        expect(await store.deliveries.ack(slot, 'a2', stale.fencingToken)).toBe('stale');
        expect(await store.deliveries.ackMany(slot, [{ id: 'a2', fencingToken: stale.fencingToken }])).toEqual(['stale']);
        expect(await store.deliveries.fail(slot, 'a2', stale.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
        expect(await store.deliveries.release(slot, [{ id: 'a2', fencingToken: stale.fencingToken }])).toEqual({ released: 0, forwarded: [] });
        expect(await store.reads.get(slot, 'a2')).toMatchObject({ state: 'firing', attempt: 2, fencingToken: fresh.fencingToken });
        expect(await store.deliveries.ack(slot, 'a2', fresh.fencingToken)).toBe('acked');
      });

      it('refuses to ack a pending timeout or an unknown id', async () => {
        await store.writes.schedule(slot, 'a3', { delayMs: LONG, payload: 'null' });
        expect(await store.deliveries.ack(slot, 'a3', 1)).toBe('stale');
        expect(await store.deliveries.ack(slot, 'nobody', 1)).toBe('stale');
        expect((await store.reads.get(slot, 'a3'))!.state).toBe('pending');
      });

      it('needs a live lease with that exact token: token 0 (what a pending timeout holds) acks, fails and releases nothing', async () => {
        await store.writes.schedule(slot, 'a4', { delayMs: LONG, payload: '"kept"' });
        await scheduleDue('a5');
        const { claimed } = await store.deliveries.claim(slot, 10, LONG);
        expect(claimed.map((entry) => entry.id)).toEqual(['a5']);
        for (const fencingToken of [0, -1]) {
          for (const id of ['a4', 'a5']) {
            expect(await store.deliveries.ack(slot, id, fencingToken)).toBe('stale');
            expect(await store.deliveries.ackMany(slot, [{ id, fencingToken }])).toEqual(['stale']);
            expect(await store.deliveries.fail(slot, id, fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
            expect(await store.deliveries.release(slot, [{ id, fencingToken }])).toEqual({ released: 0, forwarded: [] });
          }
        }
        expect(await store.reads.get(slot, 'a4')).toMatchObject({ state: 'pending', payload: '"kept"' });
        expect(await store.reads.get(slot, 'a5')).toMatchObject({ state: 'firing', fencingToken: claimed[0]!.fencingToken });
        expect(await store.writes.cancel(slot, 'a4')).toBe('cancelled');
      });

      it('acks many in one call, one result per entry in order', async () => {
        await scheduleDue('m1');
        await scheduleDue('m2');
        await scheduleDue('m3');
        const { claimed } = await store.deliveries.claim(slot, 10, LONG);
        const token = (id: string) => claimed.find((entry) => entry.id === id)!.fencingToken;
        const results = await store.deliveries.ackMany(slot, [
          { id: 'm1', fencingToken: token('m1') },
          { id: 'm2', fencingToken: token('m2') + 1000 },
          { id: 'nobody', fencingToken: 1 },
          { id: 'm3', fencingToken: token('m3') },
        ]);
        expect(results).toEqual(['acked', 'stale', 'stale', 'acked']);
        expect((await store.reads.get(slot, 'm2'))!.state).toBe('firing');
        expect(await store.deliveries.ackMany(slot, [])).toEqual([]);
      });

      it('keeps fencing tokens growing when an id is scheduled again after an ack', async () => {
        await scheduleDue('again');
        const first = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        await store.deliveries.ack(slot, 'again', first.fencingToken);
        await scheduleDue('again');
        const second = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
        expect(second.attempt).toBe(1);
      });
    });

    describe('fail', () => {
      it('retries after the delay on the store clock, keeping the error and the attempt count', async () => {
        await scheduleDue('r1', '"keep"');
        const first = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        const before = await store.now();
        const outcome = await store.deliveries.fail(slot, 'r1', first.fencingToken, { error: 'db down', retryDelayMs: SHORT, maxAttempts: 3 });
        const after = await store.now();
        expect(outcome.outcome).toBe('retried');
        const retryAt = (outcome as { retryAt: number }).retryAt;
        expect(retryAt).toBeGreaterThanOrEqual(before + SHORT);
        expect(retryAt).toBeLessThanOrEqual(after + SHORT);
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed).toEqual([]);
        const stored = await store.reads.get(slot, 'r1');
        expect(stored).toMatchObject({ state: 'pending', dueAt: retryAt, attempt: 1, lastError: 'db down', payload: '"keep"' });
        expect(stored!.scheduledAt).toBe(first.scheduledAt);
        await context.advance(PAST_SHORT);
        const second = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        expect(second).toMatchObject({ id: 'r1', attempt: 2, dueAt: retryAt, payload: '"keep"', scheduledAt: first.scheduledAt });
        expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
      });

      it('moves to the dead letters when the attempt count reaches maxAttempts', async () => {
        await scheduleDue('d1', '"body"');
        let claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        expect((await store.deliveries.fail(slot, 'd1', claimed.fencingToken, { error: 'e1', retryDelayMs: 0, maxAttempts: 2 })).outcome).toBe('retried');
        claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        expect(claimed.attempt).toBe(2);
        const outcome = await store.deliveries.fail(slot, 'd1', claimed.fencingToken, { error: 'e2 final', retryDelayMs: 0, maxAttempts: 2 });
        expect(outcome.outcome).toBe('dead');
        const deadAt = (outcome as { deadAt: number }).deadAt;
        expect(await store.reads.get(slot, 'd1')).toMatchObject({ state: 'dead', dueAt: deadAt, attempt: 2, lastError: 'e2 final', payload: '"body"' });
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect(await store.reads.listDead(slot, 0, 10)).toEqual([
          { id: 'd1', attempts: 2, lastError: 'e2 final', deadAt, scheduledAt: claimed.scheduledAt, payload: '"body"' },
        ]);
      });

      it('keeps long and unicode error texts intact', async () => {
        await scheduleDue('u1', '"p|q"');
        const claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        const error = 'Fehler | ошибка , 错误 🚕 '.repeat(10);
        await store.deliveries.fail(slot, 'u1', claimed.fencingToken, { error, retryDelayMs: LONG, maxAttempts: 5 });
        expect(await store.reads.get(slot, 'u1')).toMatchObject({ lastError: error, payload: '"p|q"' });
      });
    });

    describe('release', () => {
      it('hands claimed timeouts back as due now without spending an attempt', async () => {
        await scheduleDue('s1');
        await scheduleDue('s2');
        const { claimed } = await store.deliveries.claim(slot, 10, LONG);
        const released = await store.deliveries.release(
          slot,
          claimed.map(({ id, fencingToken }) => ({ id, fencingToken })),
        );
        expect(released).toEqual({ released: 2, forwarded: [] });
        const now = await store.now();
        const stored = await store.reads.get(slot, 's1');
        expect(stored).toMatchObject({ state: 'pending', attempt: 0 });
        expect(stored!.dueAt).toBeLessThanOrEqual(now);
        const again = await store.deliveries.claim(slot, 10, LONG);
        expect(again.claimed.map((entry) => entry.attempt)).toEqual([1, 1]);
        expect(await store.deliveries.release(slot, [{ id: 's1', fencingToken: claimed[0]!.fencingToken }])).toEqual({ released: 0, forwarded: [] });
        expect(await store.deliveries.release(slot, [])).toEqual({ released: 0, forwarded: [] });
      });
    });

    describe('schedule while firing', () => {
      it('replaces a firing timeout: pending again, attempt reset, the running handler is stale', async () => {
        await scheduleDue('rf', '"old"');
        const running = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        const replaced = await store.writes.schedule(slot, 'rf', { delayMs: SHORT, payload: '"new"' });
        expect(replaced.outcome).toBe('replaced_firing');
        expect(await store.reads.get(slot, 'rf')).toMatchObject({ state: 'pending', attempt: 0, dueAt: replaced.dueAt, payload: '"new"' });
        expect(await store.deliveries.ack(slot, 'rf', running.fencingToken)).toBe('stale');
        expect(await store.deliveries.fail(slot, 'rf', running.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
        expect(await store.deliveries.release(slot, [{ id: 'rf', fencingToken: running.fencingToken }])).toEqual({ released: 0, forwarded: [] });
        expect((await store.reads.get(slot, 'rf'))!.state).toBe('pending');
        await context.advance(PAST_SHORT);
        const next = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        expect(next).toMatchObject({ id: 'rf', attempt: 1, payload: '"new"' });
        expect(next.fencingToken).toBeGreaterThan(running.fencingToken);
      });

      it('replaces a dead letter: created again and gone from the dead letters', async () => {
        await scheduleDue('rd');
        const claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed[0]!;
        await store.deliveries.fail(slot, 'rd', claimed.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
        const result = await store.writes.schedule(slot, 'rd', { delayMs: LONG, payload: '"fresh"' });
        expect(result.outcome).toBe('created');
        expect(await store.reads.get(slot, 'rd')).toMatchObject({ state: 'pending', attempt: 0, payload: '"fresh"' });
        expect((await store.reads.get(slot, 'rd'))!.lastError).toBeUndefined();
        expect(await store.reads.listDead(slot, 0, 10)).toEqual([]);
        expect((await store.reads.stats(slot)).dead).toBe(0);
      });
    });

    describe('stats', () => {
      it('counts pending, firing and dead, and finds the oldest overdue due time', async () => {
        expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 0, dead: 0, oldestOverdueDueAt: null, pausedAt: null });
        await store.writes.schedule(slot, 'future', { delayMs: LONG, payload: 'null' });
        expect((await store.reads.stats(slot)).oldestOverdueDueAt).toBeNull();
        const now = await store.now();
        await scheduleDue('o1', 'null', now - 50);
        await scheduleDue('o2', 'null', now - 20);
        await scheduleDue('o3', 'null', now - 10);
        const { claimed } = await store.deliveries.claim(slot, 2, LONG);
        await store.deliveries.fail(slot, claimed[1]!.id, claimed[1]!.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
        const stats = await store.reads.stats(slot);
        expect(stats).toMatchObject({ pending: 2, firing: 1, dead: 1, oldestOverdueDueAt: now - 10 });
        expect(stats.now).toBeGreaterThanOrEqual(now);
      });
    });

    describe('dead letters', () => {
      async function makeDead(ids: string[]): Promise<void> {
        for (const id of ids) {
          await scheduleDue(id, JSON.stringify(id));
          const claimed = (await store.deliveries.claim(slot, 1, LONG)).claimed[0]!;
          expect(claimed.id).toBe(id);
          await store.deliveries.fail(slot, id, claimed.fencingToken, { error: `error of ${id}`, retryDelayMs: 0, maxAttempts: 1 });
          await context.advance(2);
        }
      }

      it('lists oldest first with offset and limit', async () => {
        await makeDead(['x1', 'x2', 'x3']);
        expect((await store.reads.listDead(slot, 0, 10)).map((letter) => letter.id)).toEqual(['x1', 'x2', 'x3']);
        const page = await store.reads.listDead(slot, 1, 1);
        expect(page).toHaveLength(1);
        expect(page[0]).toMatchObject({ id: 'x2', attempts: 1, lastError: 'error of x2', payload: '"x2"' });
        expect(await store.reads.listDead(slot, 5, 10)).toEqual([]);
        expect(await store.reads.listDead(otherSlot, 0, 10)).toEqual([]);
      });

      it('replays chosen or all dead letters as due now with attempts reset', async () => {
        await makeDead(['y1', 'y2', 'y3']);
        expect(await store.reads.replayDead(slot, ['y2', 'nobody'])).toBe(1);
        const stored = await store.reads.get(slot, 'y2');
        expect(stored).toMatchObject({ state: 'pending', attempt: 0, payload: '"y2"' });
        expect(stored!.lastError).toBeUndefined();
        const claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed;
        expect(claimed.map((entry) => [entry.id, entry.attempt])).toEqual([['y2', 1]]);
        expect(await store.reads.replayDead(slot)).toBe(2);
        expect((await store.reads.stats(slot)).dead).toBe(0);
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed.map((entry) => entry.id).sort()).toEqual(['y1', 'y3']);
      });

      it('purges chosen or all dead letters', async () => {
        await makeDead(['z1', 'z2', 'z3']);
        expect(await store.reads.purgeDead(slot, ['z1', 'nobody'])).toBe(1);
        expect(await store.reads.get(slot, 'z1')).toBeNull();
        expect(await store.reads.purgeDead(slot)).toBe(2);
        expect(await store.reads.listDead(slot, 0, 10)).toEqual([]);
        expect(await store.reads.get(slot, 'z3')).toBeNull();
        expect(await store.reads.purgeDead(slot)).toBe(0);
      });
    });

    describe('slot layouts', () => {
      it('records the slot count a topic is first used with, and moves it only from one recorded count to another', async () => {
        expect(await store.layout.readLayout('fresh')).toBeNull();
        expect(await store.layout.claimLayout('fresh', 16)).toEqual({ slots: 16 });
        expect(await store.layout.claimLayout('fresh', 8)).toEqual({ slots: 16 });
        expect(await store.layout.beginMigration('fresh', 8, 4)).toEqual({ slots: 16 });
        expect(await store.layout.beginMigration('fresh', 16, 32)).toEqual({ slots: 16, migratingTo: 32 });
        expect(await store.layout.beginMigration('fresh', 16, 32)).toEqual({ slots: 16, migratingTo: 32 });
        expect(await store.layout.claimLayout('fresh', 32)).toEqual({ slots: 16, migratingTo: 32 });
        expect(await store.layout.finishMigration('fresh', 16, 64)).toEqual({ slots: 16, migratingTo: 32 });
        expect(await store.layout.finishMigration('fresh', 16, 32)).toEqual({ slots: 32 });
        expect(await store.layout.finishMigration('fresh', 16, 32)).toEqual({ slots: 32 });
        expect(await store.layout.readLayout('fresh')).toEqual({ slots: 32 });
      });

      it('refuses calls on ids of the bucket being moved, sends on those of buckets moved, and lets the others be', async () => {
        const routed = (slots: number): SlotRef => ({ ...slot, slots });
        // Three ids of one slot in three data buckets: moved already, being moved, not yet.
        const [done, moving, later] = idsInBuckets(3);
        for (const id of [done, moving, later]) await store.writes.schedule(routed(16), id!.id, { delayMs: LONG, payload: '1' });
        await store.layout.markSlot(slot, { slots: 32, movingBucket: moving!.bucket });
        await expect(store.reads.get(routed(16), done!.id)).rejects.toMatchObject({ name: 'SlotMovedError', slots: 32 });
        await expect(store.writes.schedule(routed(16), done!.id, { delayMs: LONG, payload: '2' })).rejects.toMatchObject({ name: 'SlotMovedError' });
        for (const call of [
          () => store.reads.get(routed(16), moving!.id),
          () => store.writes.cancel(routed(32), moving!.id),
          () => store.writes.schedule(routed(16), moving!.id, { delayMs: LONG, payload: '2' }),
          () => store.reads.replayDead(routed(16), [later!.id, moving!.id]),
          () => store.reads.purgeDead(slot),
        ]) {
          await expect(call()).rejects.toMatchObject({ name: 'SlotLockedError', slots: 32 });
        }
        expect(await store.reads.get(routed(16), later!.id)).toMatchObject({ state: 'pending' });
        expect(await store.reads.get(routed(32), done!.id)).toMatchObject({ state: 'pending' });
        await store.layout.markSlot(slot, { slots: 32 });
        await expect(store.reads.get(routed(16), later!.id)).rejects.toMatchObject({ name: 'SlotMovedError', slots: 32 });
        expect(await store.reads.get(routed(32), moving!.id)).toMatchObject({ state: 'pending' });
        expect(await store.reads.get(slot, moving!.id)).toMatchObject({ state: 'pending' });
        await store.layout.markSlot(slot, null);
        expect(await store.writes.cancel(routed(16), moving!.id)).toBe('cancelled');
      });

      it('skips the ids of the bucket being moved when it claims', async () => {
        const [first, second] = idsInBuckets(2);
        const now = await store.now();
        await scheduleDue(first!.id, '1', now - 20);
        await scheduleDue(second!.id, '1', now - 10);
        await store.layout.markSlot(slot, { slots: 32, movingBucket: first!.bucket });
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed.map((entry) => entry.id)).toEqual([second!.id]);
        await store.layout.markSlot(slot, { slots: 32 });
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed.map((entry) => entry.id)).toEqual([first!.id]);
      });

      it('moves entries: export, import unless the id is there, drop unless changed, and forward a moved delivery', async () => {
        const target: SlotRef = { topic: 'payment', slot: 9 };
        const now = await store.now();
        await scheduleDue('m-leased', '"l"', now - 50);
        await scheduleDue('m-buried', '"b"', now - 40);
        const leased = (await store.deliveries.claim(slot, 1, LONG)).claimed[0]!;
        expect(leased.id).toBe('m-leased');
        const dying = (await store.deliveries.claim(slot, 1, LONG)).claimed[0]!;
        await store.deliveries.fail(slot, 'm-buried', dying.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 1 });
        await scheduleDue('m-due', '"d"');
        await store.writes.schedule(target, 'm-due', { delayMs: LONG, payload: '"newer"' });

        const exported = await store.layout.exportEntries(slot, ['m-leased', 'm-buried', 'm-due', 'nobody']);
        expect(exported.entries.map((entry) => [entry.id, entry.state])).toEqual([
          ['m-leased', 'firing'],
          ['m-buried', 'dead'],
          ['m-due', 'pending'],
        ]);
        expect(exported.counter).toBeGreaterThanOrEqual(dying.fencingToken);
        expect(await store.layout.importEntries(target, exported.entries, exported.counter)).toEqual([true, true, false]);
        const copied = exported.entries.map((entry) => ({ ...entry, target: target.slot }));
        expect(await store.layout.dropEntries(slot, copied)).toEqual([true, true, true]);

        // Where they live now: the delivery keeps its token, the dead letter its error, the newer schedule wins.
        expect(await store.reads.get(slot, 'm-leased')).toBeNull();
        expect(await store.reads.get(target, 'm-leased')).toMatchObject({ state: 'firing', fencingToken: leased.fencingToken, payload: '"l"' });
        expect(await store.reads.get(target, 'm-buried')).toMatchObject({ state: 'dead', lastError: 'boom', payload: '"b"' });
        expect(await store.reads.get(target, 'm-due')).toMatchObject({ state: 'pending', payload: '"newer"' });
        const token = leased.fencingToken;
        expect(await store.deliveries.ack(slot, 'm-leased', token)).toEqual({ forwardedTo: 9 });
        expect(await store.deliveries.ackMany(slot, [{ id: 'm-leased', fencingToken: token }])).toEqual([{ forwardedTo: 9 }]);
        expect(await store.deliveries.fail(slot, 'm-leased', token, { error: 'x', retryDelayMs: 0, maxAttempts: 5 })).toEqual({ outcome: 'forwarded', slot: 9 });
        expect(await store.deliveries.release(slot, [{ id: 'm-leased', fencingToken: token }])).toEqual({ released: 0, forwarded: [{ id: 'm-leased', slot: 9 }] });
        expect(await store.deliveries.ack(slot, 'm-leased', token + 1)).toBe('stale');
        expect(await store.deliveries.ack(target, 'm-leased', token)).toBe('acked');
        // Tokens handed in the new slot stay above those handed in the old one.
        await scheduleDue('m-next');
        await store.writes.schedule(target, 'm-next', { at: (await store.now()) - 1, payload: '1' });
        const [next] = (await store.deliveries.claim(target, 10, LONG)).claimed;
        expect(next!.fencingToken).toBeGreaterThan(exported.counter);
      });

      it('keeps an original that changed after it was exported, and takes its copy back', async () => {
        const target: SlotRef = { topic: 'payment', slot: 9 };
        await scheduleDue('c-1', '"one"');
        const exported = await store.layout.exportEntries(slot, ['c-1']);
        expect(await store.layout.importEntries(target, exported.entries, exported.counter)).toEqual([true]);
        await store.writes.schedule(slot, 'c-1', { delayMs: LONG, payload: '"changed"' });
        expect(await store.layout.dropEntries(slot, [{ ...exported.entries[0]!, target: target.slot }])).toEqual([false]);
        expect(await store.layout.unimportEntries(target, exported.entries)).toBe(1);
        expect(await store.reads.get(target, 'c-1')).toBeNull();
        expect(await store.reads.get(slot, 'c-1')).toMatchObject({ state: 'pending', payload: '"changed"' });
        expect(await store.layout.unimportEntries(target, [])).toBe(0);
      });

      it('lists the ids stored in one data bucket of a slot', async () => {
        const [one, two] = idsInBuckets(2);
        await store.writes.schedule(slot, one!.id, { delayMs: LONG, payload: '1' });
        await store.writes.schedule(slot, two!.id, { delayMs: LONG, payload: '1' });
        expect(await store.layout.bucketIds(slot, one!.bucket)).toEqual([one!.id]);
        expect(await store.layout.bucketIds(slot, two!.bucket)).toEqual([two!.id]);
        expect(await store.layout.bucketIds(otherSlot, one!.bucket)).toEqual([]);
      });
    });

    describe('listPending', () => {
      it('lists pending ids and due times earliest first, ties in id byte order, with offset and limit', async () => {
        const now = await store.now();
        await store.writes.schedule(slot, 'later', { at: now + 5_000, payload: 'null' });
        await store.writes.schedule(slot, 'b-tie', { at: now + 1_000, payload: 'null' });
        await store.writes.schedule(slot, 'a-tie', { at: now + 1_000, payload: 'null' });
        await store.writes.schedule(slot, 'overdue', { at: now - 10, payload: 'null' });
        await store.writes.schedule(otherSlot, 'elsewhere', { at: now, payload: 'null' });
        expect(await store.reads.listPending(slot, 0, 10)).toEqual([
          { id: 'overdue', dueAt: now - 10 },
          { id: 'a-tie', dueAt: now + 1_000 },
          { id: 'b-tie', dueAt: now + 1_000 },
          { id: 'later', dueAt: now + 5_000 },
        ]);
        expect(await store.reads.listPending(slot, 1, 2)).toEqual([
          { id: 'a-tie', dueAt: now + 1_000 },
          { id: 'b-tie', dueAt: now + 1_000 },
        ]);
        expect(await store.reads.listPending(slot, 4, 10)).toEqual([]);
        expect(await store.reads.listPending(slot, 0, 0)).toEqual([]);
        expect(await store.reads.listPending({ topic: 'ride', slot: 0 }, 0, 10)).toEqual([]);
      });

      it('leaves out firing timeouts and dead letters', async () => {
        await scheduleDue('fires');
        await scheduleDue('dies');
        const { claimed } = await store.deliveries.claim(slot, 10, LONG);
        const dying = claimed.find((entry) => entry.id === 'dies')!;
        await store.deliveries.fail(slot, 'dies', dying.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
        const pending = await store.writes.schedule(slot, 'waits', { delayMs: LONG, payload: 'null' });
        expect(await store.reads.listPending(slot, 0, 10)).toEqual([{ id: 'waits', dueAt: pending.dueAt }]);
      });
    });

    describe('wake-ups', () => {
      it('tells a subscriber (another store instance) when a schedule lands ahead of the slot', async () => {
        const peer = await context.openPeer();
        const wakes: Array<{ slot: SlotRef; dueAt: number }> = [];
        const unsubscribe = await peer.subscribe(['payment'], (wokenSlot, dueAt) => wakes.push({ slot: wokenSlot, dueAt }), () => undefined);
        try {
          const late = await store.writes.schedule(slot, 'w1', { delayMs: 2 * LONG, payload: 'null' });
          await waitUntil(() => wakes.length >= 1);
          expect(wakes[0]).toEqual({ slot, dueAt: late.dueAt });
          const early = await store.writes.schedule(slot, 'w2', { delayMs: LONG, payload: 'null' });
          await waitUntil(() => wakes.some((wake) => wake.dueAt === early.dueAt));
          const other = await store.writes.schedule(otherSlot, 'w3', { delayMs: LONG, payload: 'null' });
          await waitUntil(() => wakes.some((wake) => wake.slot.slot === otherSlot.slot && wake.dueAt === other.dueAt));
          // Not ahead of the slot's earliest: no wake-up for w4, so the next one seen is w5's.
          await store.writes.schedule(slot, 'w4', { delayMs: 3 * LONG, payload: 'null' });
          const count = wakes.length;
          const earliest = await store.writes.schedule(slot, 'w5', { at: (await store.now()) - 1, payload: 'null' });
          await waitUntil(() => wakes.length > count);
          expect(wakes[count]).toEqual({ slot, dueAt: earliest.dueAt });
        } finally {
          await unsubscribe();
        }
      });

      it('tells subscribers (another store instance) of each firing timeout cancel and cancelMany removed, with its fencing token', async () => {
        const peer = await context.openPeer();
        const notices: string[] = [];
        const onCancel = (topic: string, id: string, fencingToken: number) => notices.push(`${topic} ${id} ${fencingToken}`);
        const unsubscribe = await peer.subscribe(['payment'], () => undefined, () => undefined, undefined, onCancel);
        try {
          await store.writes.schedule(slot, 'waits', { delayMs: LONG, payload: 'null' });
          await store.writes.schedule(slot, 'waits-too', { delayMs: LONG, payload: 'null' });
          for (const id of ['order:1:a', 'run-2', 'run-3']) await scheduleDue(id);
          const { claimed } = await store.deliveries.claim(slot, 10, LONG);
          const token = (id: string) => claimed.find((entry) => entry.id === id)!.fencingToken;
          // Pending cancels come first: had they sent a notice, it would arrive before the others.
          expect(await store.writes.cancel(slot, 'waits')).toBe('cancelled');
          expect(await store.writes.cancelMany(slot, ['waits-too'])).toEqual(['cancelled']);
          expect(await store.writes.cancel(slot, 'order:1:a')).toBe('firing');
          expect(await store.writes.cancelMany(slot, ['run-2', 'unknown', 'run-3'])).toEqual(['firing', 'not_found', 'firing']);
          await waitUntil(() => notices.length >= 3);
          expect(notices).toEqual([`payment order:1:a ${token('order:1:a')}`, `payment run-2 ${token('run-2')}`, `payment run-3 ${token('run-3')}`]);
        } finally {
          await unsubscribe();
        }
      });

      it('stops delivering after unsubscribe and ignores other topics', async () => {
        const wakes: string[] = [];
        const unsubscribe = await store.subscribe(['ride'], (wokenSlot) => wakes.push(wokenSlot.topic), () => undefined);
        await store.writes.schedule(slot, 'p1', { delayMs: LONG, payload: 'null' });
        await store.writes.schedule({ topic: 'ride', slot: 0 }, 'r1', { delayMs: LONG, payload: 'null' });
        await waitUntil(() => wakes.length >= 1);
        await unsubscribe();
        expect(wakes).toEqual(['ride']);
      });
    });

    it('answers ping and now', async () => {
      expect(await store.ping()).toBeGreaterThanOrEqual(0);
      const before = await store.now();
      await context.advance(20);
      expect(await store.now()).toBeGreaterThanOrEqual(before + 20);
    });
  });
}
