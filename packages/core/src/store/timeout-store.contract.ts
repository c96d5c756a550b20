/// <reference types="jest" />
import type { SlotRef, TimeoutStore } from './timeout-store.js';

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

/** Polls `check` until it returns true, up to `timeoutMs` of real time. */
async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const LONG = 60_000;
/** A lease or delay that ends within the test; long enough that a loaded machine does not outrun it. */
const SHORT = 150;
/** Store time to let pass so that `SHORT` has surely ended. */
const PAST_SHORT = 200;

/**
 * The behaviour every `TimeoutStore` must have, as a Jest suite. Call it from a spec file with a
 * factory of fresh stores; it declares its own `describe`. Lease and delay values are tens of
 * milliseconds so it runs quickly against a real Redis.
 */
export function describeTimeoutStoreContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract: ${name}`, () => {
    let context: StoreContractContext;
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 3 };
    const otherSlot: SlotRef = { topic: 'payment', slot: 5 };

    beforeEach(async () => {
      context = await makeContext();
      store = context.store;
      await store.init([{ name: 'payment', slots: 16 }, { name: 'ride', slots: 1 }]);
    });

    afterEach(async () => {
      await context.dispose();
    });

    /** Schedules `id` due already (absolute time in the past) and returns its due time. */
    async function scheduleDue(id: string, payload = '{"n":1}', at?: number): Promise<number> {
      const dueAt = at ?? (await store.now()) - 1;
      const result = await store.schedule(slot, id, { at: dueAt, payload });
      return result.dueAt;
    }

    describe('schedule and get', () => {
      it('creates a pending timeout due after the delay on the store clock', async () => {
        const before = await store.now();
        const result = await store.schedule(slot, 'order-1', { delayMs: LONG, payload: '{"amount":42}' });
        const after = await store.now();
        expect(result.outcome).toBe('created');
        expect(result.dueAt).toBeGreaterThanOrEqual(before + LONG);
        expect(result.dueAt).toBeLessThanOrEqual(after + LONG);
        const stored = await store.get(slot, 'order-1');
        expect(stored).toMatchObject({ id: 'order-1', state: 'pending', dueAt: result.dueAt, attempt: 0, payload: '{"amount":42}' });
        expect(stored!.scheduledAt).toBeGreaterThanOrEqual(before);
        expect(stored!.scheduledAt).toBeLessThanOrEqual(after);
        expect(stored!.lastError).toBeUndefined();
      });

      it('takes `at` as an absolute due time', async () => {
        const at = (await store.now()) + 12_345;
        const result = await store.schedule(slot, 'abs', { at, payload: 'null' });
        expect(result.dueAt).toBe(at);
        expect((await store.get(slot, 'abs'))!.dueAt).toBe(at);
      });

      it('is an upsert: the last call wins for due time and payload', async () => {
        await store.schedule(slot, 'order-1', { delayMs: LONG, payload: '"first"' });
        const second = await store.schedule(slot, 'order-1', { delayMs: 2 * LONG, payload: '"second"' });
        expect(second.outcome).toBe('replaced');
        const stored = await store.get(slot, 'order-1');
        expect(stored).toMatchObject({ state: 'pending', dueAt: second.dueAt, payload: '"second"' });
        const third = await store.schedule(slot, 'order-1', { at: (await store.now()) - 1, payload: '"third"' });
        expect(third.outcome).toBe('replaced');
        const claim = await store.claim(slot, 10, LONG);
        expect(claim.claimed.map((entry) => [entry.id, entry.payload])).toEqual([['order-1', '"third"']]);
      });

      it('returns null for an unknown id and keeps slots and topics apart', async () => {
        await store.schedule(slot, 'same-id', { delayMs: LONG, payload: '"a"' });
        expect(await store.get(slot, 'other')).toBeNull();
        expect(await store.get(otherSlot, 'same-id')).toBeNull();
        expect(await store.get({ topic: 'ride', slot: 3 }, 'same-id')).toBeNull();
        const other = await store.schedule({ topic: 'ride', slot: 3 }, 'same-id', { delayMs: LONG, payload: '"b"' });
        expect(other.outcome).toBe('created');
        expect((await store.get(slot, 'same-id'))!.payload).toBe('"a"');
      });

      it('stores ids with braces, colons and unicode, and payloads with any text', async () => {
        const ids = ['{payment:3}', 'a}b{c', 'x:y:z', 'ünï-çødé-订单-🚕', '|,|', ' spaced id ', '{'.repeat(256) + ':}'.repeat(128)];
        expect(ids.at(-1)).toHaveLength(512);
        const payload = JSON.stringify({ text: 'pipe | comma , brace { } 🚕', nested: [1, { a: null }] });
        for (const id of ids) expect((await store.schedule(slot, id, { at: (await store.now()) - 1, payload })).outcome).toBe('created');
        for (const id of ids) expect(await store.get(slot, id)).toMatchObject({ id, state: 'pending', payload });
        const claim = await store.claim(slot, 100, LONG);
        expect(claim.claimed.map((entry) => entry.id).sort()).toEqual([...ids].sort());
        for (const entry of claim.claimed) expect(entry.payload).toBe(payload);
        const acks = await store.ackMany(slot, claim.claimed.map(({ id, fencingToken }) => ({ id, fencingToken })));
        expect(acks).toEqual(ids.map(() => true));
        for (const id of ids) expect(await store.get(slot, id)).toBeNull();
        expect(await store.cancel(slot, '{payment:3}')).toBe('not_found');
      });
      it('keeps crafted ids and payloads as plain data (no prototype pollution)', async () => {
        const ids = ['__proto__', 'constructor', 'hasOwnProperty', 'prototype'];
        const payload = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
        for (const id of ids) await scheduleDue(id, payload);
        for (const id of ids) expect(await store.get(slot, id)).toMatchObject({ id, state: 'pending', payload });
        const { claimed } = await store.claim(slot, 10, LONG);
        expect(claimed.map((entry) => entry.id).sort()).toEqual([...ids].sort());
        for (const entry of claimed) expect(entry.payload).toBe(payload);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(await store.ackMany(slot, claimed.map(({ id, fencingToken }) => ({ id, fencingToken })))).toEqual(ids.map(() => true));
      });
    });

    describe('cancel', () => {
      it('cancels a pending timeout, which then never fires', async () => {
        await scheduleDue('c1');
        expect(await store.cancel(slot, 'c1')).toBe('cancelled');
        expect(await store.get(slot, 'c1')).toBeNull();
        expect((await store.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect(await store.cancel(slot, 'c1')).toBe('not_found');
      });

      it('says firing for a claimed timeout and changes nothing', async () => {
        await scheduleDue('c2');
        const [claimed] = (await store.claim(slot, 10, LONG)).claimed;
        expect(await store.cancel(slot, 'c2')).toBe('firing');
        expect((await store.get(slot, 'c2'))!.state).toBe('firing');
        expect(await store.ack(slot, 'c2', claimed!.fencingToken)).toBe(true);
      });

      it('says not_found for unknown ids and dead letters', async () => {
        expect(await store.cancel(slot, 'nobody')).toBe('not_found');
        await scheduleDue('c3');
        const [claimed] = (await store.claim(slot, 10, LONG)).claimed;
        await store.fail(slot, 'c3', claimed!.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 1 });
        expect(await store.cancel(slot, 'c3')).toBe('not_found');
        expect((await store.get(slot, 'c3'))!.state).toBe('dead');
      });
    });

    describe('claim', () => {
      it('claims only due timeouts, oldest first, up to the limit, and reports the next due time', async () => {
        const now = await store.now();
        await scheduleDue('late', '"l"', now - 10);
        await scheduleDue('early', '"e"', now - 30);
        await scheduleDue('middle', '"m"', now - 20);
        const future = await store.schedule(slot, 'future', { delayMs: LONG, payload: '"f"' });
        const first = await store.claim(slot, 2, LONG);
        expect(first.claimed.map((entry) => entry.id)).toEqual(['early', 'middle']);
        expect(first.claimed[0]).toMatchObject({ dueAt: now - 30, attempt: 1, payload: '"e"' });
        expect(first.nextDueAt).toBe(now - 10);
        expect(first.now).toBeGreaterThanOrEqual(now);
        expect(first.recovered).toBe(0);
        const second = await store.claim(slot, 10, LONG);
        expect(second.claimed.map((entry) => entry.id)).toEqual(['late']);
        expect(second.nextDueAt).toBe(future.dueAt);
        expect((await store.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect((await store.get(slot, 'early'))!.state).toBe('firing');
      });

      it('reports no next due time for an empty slot', async () => {
        const result = await store.claim(otherSlot, 10, LONG);
        expect(result).toMatchObject({ claimed: [], nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null });
      });

      it('reports the earliest lease expiry left in the slot, its own new leases included', async () => {
        await scheduleDue('held-1');
        const first = await store.claim(slot, 10, 5_000);
        expect(first.nextLeaseExpiresAt).toBe(first.now + 5_000);
        expect(first.nextDueAt).toBeNull();
        await scheduleDue('held-2');
        const second = await store.claim(slot, 10, LONG);
        expect(second.claimed.map((entry) => entry.id)).toEqual(['held-2']);
        expect(second.nextLeaseExpiresAt).toBe(first.now + 5_000);
        expect(await store.ack(slot, 'held-1', first.claimed[0]!.fencingToken)).toBe(true);
        expect((await store.claim(slot, 10, LONG)).nextLeaseExpiresAt).toBe(second.now + LONG);
        expect((await store.claim(otherSlot, 10, LONG)).nextLeaseExpiresAt).toBeNull();
      });

      it('reports no lease expiry once the expired leases were recovered', async () => {
        const dueAt = await scheduleDue('lapsed');
        const first = await store.claim(slot, 10, SHORT);
        expect(first.nextLeaseExpiresAt).toBe(first.now + SHORT);
        await context.advance(PAST_SHORT);
        const recovery = await store.claim(slot, 0, LONG);
        expect(recovery).toMatchObject({ recovered: 1, nextDueAt: dueAt, nextLeaseExpiresAt: null });
      });

      it('gives claimed timeouts a lease and fencing tokens that differ', async () => {
        await scheduleDue('f1');
        await scheduleDue('f2');
        const { claimed, now } = await store.claim(slot, 10, 5_000);
        expect(new Set(claimed.map((entry) => entry.fencingToken)).size).toBe(2);
        const stored = await store.get(slot, 'f1');
        expect(stored).toMatchObject({ state: 'firing', attempt: 1 });
        expect(stored!.leaseExpiresAt).toBe(now + 5_000);
        expect(stored!.fencingToken).toBe(claimed.find((entry) => entry.id === 'f1')!.fencingToken);
      });

      it('never hands one timeout to two concurrent claimers', async () => {
        const peer = await context.openPeer();
        const ids = Array.from({ length: 120 }, (_, i) => `race-${i}`);
        const at = (await store.now()) - 1;
        await Promise.all(ids.map((id) => store.schedule(slot, id, { at, payload: 'null' })));
        const seen: string[] = [];
        const drain = async (claimer: TimeoutStore) => {
          for (;;) {
            const { claimed } = await claimer.claim(slot, 7, LONG);
            if (claimed.length === 0) return;
            seen.push(...claimed.map((entry) => entry.id));
          }
        };
        await Promise.all([drain(store), drain(peer), drain(store), drain(peer)]);
        expect(seen.length).toBe(ids.length);
        expect(new Set(seen).size).toBe(ids.length);
      });

      it('returns expired leases to due at their original due time, attempt kept, with a greater token', async () => {
        const dueAt = await scheduleDue('lease-1');
        const first = (await store.claim(slot, 10, SHORT)).claimed[0]!;
        expect((await store.claim(slot, 10, SHORT)).claimed).toEqual([]);
        await context.advance(PAST_SHORT);
        const second = await store.claim(slot, 10, LONG);
        expect(second.recovered).toBe(1);
        expect(second.claimed).toHaveLength(1);
        expect(second.claimed[0]).toMatchObject({ id: 'lease-1', dueAt, attempt: 2 });
        expect(second.claimed[0]!.fencingToken).toBeGreaterThan(first.fencingToken);
        expect(second.claimed[0]!.scheduledAt).toBe(first.scheduledAt);
      });

      it('recovers expired leases inside a claim even when it takes nothing (limit 0)', async () => {
        const dueAt = await scheduleDue('lease-2', '"kept"');
        const first = (await store.claim(slot, 10, SHORT)).claimed[0]!;
        await context.advance(PAST_SHORT);
        const recovery = await store.claim(slot, 0, LONG);
        expect(recovery).toMatchObject({ claimed: [], recovered: 1, nextDueAt: dueAt });
        const stored = await store.get(slot, 'lease-2');
        expect(stored).toMatchObject({ state: 'pending', dueAt, attempt: 1, scheduledAt: first.scheduledAt, payload: '"kept"' });
        expect(stored!.leaseExpiresAt).toBeUndefined();
        expect(await store.ack(slot, 'lease-2', first.fencingToken)).toBe(false);
        expect(await store.cancel(slot, 'lease-2')).toBe('cancelled');
      });
    });

    describe('ack', () => {
      it('removes a fired timeout when the token is current', async () => {
        await scheduleDue('a1');
        const [claimed] = (await store.claim(slot, 10, LONG)).claimed;
        expect(await store.ack(slot, 'a1', claimed!.fencingToken)).toBe(true);
        expect(await store.get(slot, 'a1')).toBeNull();
        expect(await store.ack(slot, 'a1', claimed!.fencingToken)).toBe(false);
      });

      it('changes nothing with a stale token (lease expired and re-claimed)', async () => {
        await scheduleDue('a2');
        const stale = (await store.claim(slot, 10, SHORT)).claimed[0]!;
        await context.advance(PAST_SHORT);
        const fresh = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect(await store.ack(slot, 'a2', stale.fencingToken)).toBe(false);
        expect(await store.ackMany(slot, [{ id: 'a2', fencingToken: stale.fencingToken }])).toEqual([false]);
        expect(await store.fail(slot, 'a2', stale.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
        expect(await store.release(slot, [{ id: 'a2', fencingToken: stale.fencingToken }])).toBe(0);
        expect(await store.get(slot, 'a2')).toMatchObject({ state: 'firing', attempt: 2, fencingToken: fresh.fencingToken });
        expect(await store.ack(slot, 'a2', fresh.fencingToken)).toBe(true);
      });

      it('refuses to ack a pending timeout or an unknown id', async () => {
        await store.schedule(slot, 'a3', { delayMs: LONG, payload: 'null' });
        expect(await store.ack(slot, 'a3', 1)).toBe(false);
        expect(await store.ack(slot, 'nobody', 1)).toBe(false);
        expect((await store.get(slot, 'a3'))!.state).toBe('pending');
      });

      it('acks many in one call, one boolean per entry in order', async () => {
        await scheduleDue('m1');
        await scheduleDue('m2');
        await scheduleDue('m3');
        const { claimed } = await store.claim(slot, 10, LONG);
        const token = (id: string) => claimed.find((entry) => entry.id === id)!.fencingToken;
        const results = await store.ackMany(slot, [
          { id: 'm1', fencingToken: token('m1') },
          { id: 'm2', fencingToken: token('m2') + 1000 },
          { id: 'nobody', fencingToken: 1 },
          { id: 'm3', fencingToken: token('m3') },
        ]);
        expect(results).toEqual([true, false, false, true]);
        expect((await store.get(slot, 'm2'))!.state).toBe('firing');
        expect(await store.ackMany(slot, [])).toEqual([]);
      });

      it('keeps fencing tokens growing when an id is scheduled again after an ack', async () => {
        await scheduleDue('again');
        const first = (await store.claim(slot, 10, LONG)).claimed[0]!;
        await store.ack(slot, 'again', first.fencingToken);
        await scheduleDue('again');
        const second = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
        expect(second.attempt).toBe(1);
      });
    });

    describe('fail', () => {
      it('retries after the delay on the store clock, keeping the error and the attempt count', async () => {
        await scheduleDue('r1', '"keep"');
        const first = (await store.claim(slot, 10, LONG)).claimed[0]!;
        const before = await store.now();
        const outcome = await store.fail(slot, 'r1', first.fencingToken, { error: 'db down', retryDelayMs: SHORT, maxAttempts: 3 });
        const after = await store.now();
        expect(outcome.outcome).toBe('retried');
        const retryAt = (outcome as { retryAt: number }).retryAt;
        expect(retryAt).toBeGreaterThanOrEqual(before + SHORT);
        expect(retryAt).toBeLessThanOrEqual(after + SHORT);
        expect((await store.claim(slot, 10, LONG)).claimed).toEqual([]);
        const stored = await store.get(slot, 'r1');
        expect(stored).toMatchObject({ state: 'pending', dueAt: retryAt, attempt: 1, lastError: 'db down', payload: '"keep"' });
        expect(stored!.scheduledAt).toBe(first.scheduledAt);
        await context.advance(PAST_SHORT);
        const second = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect(second).toMatchObject({ id: 'r1', attempt: 2, dueAt: retryAt, payload: '"keep"', scheduledAt: first.scheduledAt });
        expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
      });

      it('moves to the dead letters when the attempt count reaches maxAttempts', async () => {
        await scheduleDue('d1', '"body"');
        let claimed = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect((await store.fail(slot, 'd1', claimed.fencingToken, { error: 'e1', retryDelayMs: 0, maxAttempts: 2 })).outcome).toBe('retried');
        claimed = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect(claimed.attempt).toBe(2);
        const outcome = await store.fail(slot, 'd1', claimed.fencingToken, { error: 'e2 final', retryDelayMs: 0, maxAttempts: 2 });
        expect(outcome.outcome).toBe('dead');
        const deadAt = (outcome as { deadAt: number }).deadAt;
        expect(await store.get(slot, 'd1')).toMatchObject({ state: 'dead', dueAt: deadAt, attempt: 2, lastError: 'e2 final', payload: '"body"' });
        expect((await store.claim(slot, 10, LONG)).claimed).toEqual([]);
        expect(await store.listDead(slot, 0, 10)).toEqual([
          { id: 'd1', attempts: 2, lastError: 'e2 final', deadAt, scheduledAt: claimed.scheduledAt, payload: '"body"' },
        ]);
      });

      it('keeps long and unicode error texts intact', async () => {
        await scheduleDue('u1', '"p|q"');
        const claimed = (await store.claim(slot, 10, LONG)).claimed[0]!;
        const error = 'Fehler | ошибка , 错误 🚕 '.repeat(10);
        await store.fail(slot, 'u1', claimed.fencingToken, { error, retryDelayMs: LONG, maxAttempts: 5 });
        expect(await store.get(slot, 'u1')).toMatchObject({ lastError: error, payload: '"p|q"' });
      });
    });

    describe('release', () => {
      it('hands claimed timeouts back as due now without spending an attempt', async () => {
        await scheduleDue('s1');
        await scheduleDue('s2');
        const { claimed } = await store.claim(slot, 10, LONG);
        const released = await store.release(
          slot,
          claimed.map(({ id, fencingToken }) => ({ id, fencingToken })),
        );
        expect(released).toBe(2);
        const now = await store.now();
        const stored = await store.get(slot, 's1');
        expect(stored).toMatchObject({ state: 'pending', attempt: 0 });
        expect(stored!.dueAt).toBeLessThanOrEqual(now);
        const again = await store.claim(slot, 10, LONG);
        expect(again.claimed.map((entry) => entry.attempt)).toEqual([1, 1]);
        expect(await store.release(slot, [{ id: 's1', fencingToken: claimed[0]!.fencingToken }])).toBe(0);
        expect(await store.release(slot, [])).toBe(0);
      });
    });

    describe('schedule while firing', () => {
      it('replaces a firing timeout: pending again, attempt reset, the running handler is stale', async () => {
        await scheduleDue('rf', '"old"');
        const running = (await store.claim(slot, 10, LONG)).claimed[0]!;
        const replaced = await store.schedule(slot, 'rf', { delayMs: SHORT, payload: '"new"' });
        expect(replaced.outcome).toBe('replaced_firing');
        expect(await store.get(slot, 'rf')).toMatchObject({ state: 'pending', attempt: 0, dueAt: replaced.dueAt, payload: '"new"' });
        expect(await store.ack(slot, 'rf', running.fencingToken)).toBe(false);
        expect(await store.fail(slot, 'rf', running.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 })).toEqual({ outcome: 'stale' });
        expect(await store.release(slot, [{ id: 'rf', fencingToken: running.fencingToken }])).toBe(0);
        expect((await store.get(slot, 'rf'))!.state).toBe('pending');
        await context.advance(PAST_SHORT);
        const next = (await store.claim(slot, 10, LONG)).claimed[0]!;
        expect(next).toMatchObject({ id: 'rf', attempt: 1, payload: '"new"' });
        expect(next.fencingToken).toBeGreaterThan(running.fencingToken);
      });

      it('replaces a dead letter: created again and gone from the dead letters', async () => {
        await scheduleDue('rd');
        const claimed = (await store.claim(slot, 10, LONG)).claimed[0]!;
        await store.fail(slot, 'rd', claimed.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
        const result = await store.schedule(slot, 'rd', { delayMs: LONG, payload: '"fresh"' });
        expect(result.outcome).toBe('created');
        expect(await store.get(slot, 'rd')).toMatchObject({ state: 'pending', attempt: 0, payload: '"fresh"' });
        expect((await store.get(slot, 'rd'))!.lastError).toBeUndefined();
        expect(await store.listDead(slot, 0, 10)).toEqual([]);
        expect((await store.stats(slot)).dead).toBe(0);
      });
    });

    describe('stats', () => {
      it('counts pending, firing and dead, and finds the oldest overdue due time', async () => {
        expect(await store.stats(slot)).toMatchObject({ pending: 0, firing: 0, dead: 0, oldestOverdueDueAt: null });
        await store.schedule(slot, 'future', { delayMs: LONG, payload: 'null' });
        expect((await store.stats(slot)).oldestOverdueDueAt).toBeNull();
        const now = await store.now();
        await scheduleDue('o1', 'null', now - 50);
        await scheduleDue('o2', 'null', now - 20);
        await scheduleDue('o3', 'null', now - 10);
        const { claimed } = await store.claim(slot, 2, LONG);
        await store.fail(slot, claimed[1]!.id, claimed[1]!.fencingToken, { error: 'x', retryDelayMs: 0, maxAttempts: 1 });
        const stats = await store.stats(slot);
        expect(stats).toMatchObject({ pending: 2, firing: 1, dead: 1, oldestOverdueDueAt: now - 10 });
        expect(stats.now).toBeGreaterThanOrEqual(now);
      });
    });

    describe('dead letters', () => {
      async function makeDead(ids: string[]): Promise<void> {
        for (const id of ids) {
          await scheduleDue(id, JSON.stringify(id));
          const claimed = (await store.claim(slot, 1, LONG)).claimed[0]!;
          expect(claimed.id).toBe(id);
          await store.fail(slot, id, claimed.fencingToken, { error: `error of ${id}`, retryDelayMs: 0, maxAttempts: 1 });
          await context.advance(2);
        }
      }

      it('lists oldest first with offset and limit', async () => {
        await makeDead(['x1', 'x2', 'x3']);
        expect((await store.listDead(slot, 0, 10)).map((letter) => letter.id)).toEqual(['x1', 'x2', 'x3']);
        const page = await store.listDead(slot, 1, 1);
        expect(page).toHaveLength(1);
        expect(page[0]).toMatchObject({ id: 'x2', attempts: 1, lastError: 'error of x2', payload: '"x2"' });
        expect(await store.listDead(slot, 5, 10)).toEqual([]);
        expect(await store.listDead(otherSlot, 0, 10)).toEqual([]);
      });

      it('replays chosen or all dead letters as due now with attempts reset', async () => {
        await makeDead(['y1', 'y2', 'y3']);
        expect(await store.replayDead(slot, ['y2', 'nobody'])).toBe(1);
        const stored = await store.get(slot, 'y2');
        expect(stored).toMatchObject({ state: 'pending', attempt: 0, payload: '"y2"' });
        expect(stored!.lastError).toBeUndefined();
        const claimed = (await store.claim(slot, 10, LONG)).claimed;
        expect(claimed.map((entry) => [entry.id, entry.attempt])).toEqual([['y2', 1]]);
        expect(await store.replayDead(slot)).toBe(2);
        expect((await store.stats(slot)).dead).toBe(0);
        expect((await store.claim(slot, 10, LONG)).claimed.map((entry) => entry.id).sort()).toEqual(['y1', 'y3']);
      });

      it('purges chosen or all dead letters', async () => {
        await makeDead(['z1', 'z2', 'z3']);
        expect(await store.purgeDead(slot, ['z1', 'nobody'])).toBe(1);
        expect(await store.get(slot, 'z1')).toBeNull();
        expect(await store.purgeDead(slot)).toBe(2);
        expect(await store.listDead(slot, 0, 10)).toEqual([]);
        expect(await store.get(slot, 'z3')).toBeNull();
        expect(await store.purgeDead(slot)).toBe(0);
      });
    });

    describe('wake-ups', () => {
      it('tells a subscriber (another store instance) when a schedule lands ahead of the slot', async () => {
        const peer = await context.openPeer();
        const wakes: Array<{ slot: SlotRef; dueAt: number }> = [];
        const unsubscribe = await peer.subscribe(['payment'], (wokenSlot, dueAt) => wakes.push({ slot: wokenSlot, dueAt }), () => undefined);
        try {
          const late = await store.schedule(slot, 'w1', { delayMs: 2 * LONG, payload: 'null' });
          await waitUntil(() => wakes.length >= 1);
          expect(wakes[0]).toEqual({ slot, dueAt: late.dueAt });
          const early = await store.schedule(slot, 'w2', { delayMs: LONG, payload: 'null' });
          await waitUntil(() => wakes.some((wake) => wake.dueAt === early.dueAt));
          const other = await store.schedule(otherSlot, 'w3', { delayMs: LONG, payload: 'null' });
          await waitUntil(() => wakes.some((wake) => wake.slot.slot === otherSlot.slot && wake.dueAt === other.dueAt));
          // Not ahead of the slot's earliest: no wake-up for w4, so the next one seen is w5's.
          await store.schedule(slot, 'w4', { delayMs: 3 * LONG, payload: 'null' });
          const count = wakes.length;
          const earliest = await store.schedule(slot, 'w5', { at: (await store.now()) - 1, payload: 'null' });
          await waitUntil(() => wakes.length > count);
          expect(wakes[count]).toEqual({ slot, dueAt: earliest.dueAt });
        } finally {
          await unsubscribe();
        }
      });

      it('stops delivering after unsubscribe and ignores other topics', async () => {
        const wakes: string[] = [];
        const unsubscribe = await store.subscribe(['ride'], (wokenSlot) => wakes.push(wokenSlot.topic), () => undefined);
        await store.schedule(slot, 'p1', { delayMs: LONG, payload: 'null' });
        await store.schedule({ topic: 'ride', slot: 0 }, 'r1', { delayMs: LONG, payload: 'null' });
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
