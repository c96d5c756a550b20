import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ClaimedTimeout, ClaimResult, LeaseExpiryPolicy, SlotRef, TimeoutStore } from '../store/timeout-store.js';
import { SlotPoller, type ClaimSink, type PollerCapacity } from './slot-poller.js';

/** What the spec scripts: the worker the poller hands its claims to, and the capacity it reserves from. */
type PollerHost = ClaimSink & PollerCapacity;
import { engineContext } from '../../test/engine-context.js';

const ref: SlotRef = { topic: 'payment', slot: 3, slots: 8 };
const SWEEP_MS = 60_000;

/** A claimed timeout with id `id` (only the fields the poller passes on). */
function claimed(id: string): ClaimedTimeout {
  return { id, payload: 'null', dueAt: 0, attempt: 1, fencingToken: 1 } as ClaimedTimeout;
}

/** The reply of a claim that brought back `count` timeouts. */
function reply(count: number, extra: Partial<ClaimResult> = {}): ClaimResult {
  const ids = Array.from({ length: count }, (_, index) => claimed(`t${index}`));
  return { claimed: ids, incidents: [], now: 1_000, nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null, ...extra };
}

/**
 * A poller over a scripted store: each claim takes the next reply (or error) from `replies`, and
 * the host records what the poller asked of it.
 */
function setUp(replies: (ClaimResult | Error)[], host: Partial<PollerHost> = {}) {
  const limits: number[] = [];
  const errors: unknown[] = [];
  const store = {
    deliveries: {
      claim: async (_ref: SlotRef, limit: number) => {
        limits.push(limit);
        const next = replies.shift() ?? reply(0);
        if (next instanceof Error) throw next;
        return next;
      },
    },
  } as unknown as TimeoutStore;
  const context = engineContext(store, 8, { sweepIntervalMs: SWEEP_MS, reportError: (error) => errors.push(error) });
  const dispatched: number[] = [];
  const released: string[] = [];
  let reservedNow = 0;
  const fullHost: PollerHost = {
    options: { batchSize: 100, leaseMs: 30_000 },
    leaseExpiry: { maxAttempts: 3, backoff: { baseMs: 1_000, capMs: 10_000 } } satisfies LeaseExpiryPolicy,
    active: true,
    reserve: (poller) => {
      reservedNow += poller.wanted;
      return poller.wanted;
    },
    unreserve: (limit) => {
      reservedNow -= limit;
    },
    dispatch: (_slot, result) => {
      dispatched.push(result.claimed.length);
    },
    releaseClaimed: async (_ref, timeouts) => {
      released.push(...timeouts.map((timeout) => timeout.id));
    },
  };
  // Copies accessors as accessors: a test's `active` getter stays live.
  Object.defineProperties(fullHost, Object.getOwnPropertyDescriptors(host));
  const poller = new SlotPoller(fullHost, context, ref, fullHost);
  return { poller, host: fullHost, limits, errors, dispatched, released, reserved: () => reservedNow };
}

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe('SlotPoller', () => {
  it('claims again at once while batches come back full, then asks for twice the trickle it saw', async () => {
    const { poller, limits, dispatched, reserved } = setUp([reply(100), reply(100), reply(7)]);
    poller.start();
    await poller.settled;
    expect(limits).toEqual([100, 100, 100]);
    expect(dispatched).toEqual([100, 100, 7]);
    expect(reserved()).toBe(0);
    // 7 came back: the next claim asks for max(16, 2 * 7).
    expect(poller.wanted).toBe(16);
    poller.halt();
  });

  it('asks for twice what the last claim brought, capped at batchSize', async () => {
    const { poller } = setUp([reply(60)]);
    poller.start();
    await poller.settled;
    expect(poller.wanted).toBe(100);
    poller.halt();
  });

  it('sleeps until the backstop sweep when nothing is due (the first one spread over the interval), then claims again', async () => {
    // The first sweep after start comes at random() x the interval: 0.5 puts it at 30 s.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const { poller, limits } = setUp([reply(0), reply(0)]);
      poller.start();
      await poller.settled;
      expect(limits).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(SWEEP_MS / 2 - 10);
      expect(limits).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(20);
      await poller.settled;
      expect(limits).toHaveLength(2);
      poller.halt();
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('parks without claiming when its worker has no capacity, and counts as current meanwhile', async () => {
    const { poller, limits } = setUp([], { reserve: () => 0 });
    poller.start();
    await poller.settled;
    expect(limits).toEqual([]);
    expect(poller.idleMs(performance.now() + 5_000)).toBe(0);
    poller.halt();
  });

  it('hands back what a claim brought after its worker stopped, without dispatching it', async () => {
    const stopping = { active: true };
    const { poller, dispatched, released } = setUp([reply(2)], {
      get active() {
        return stopping.active;
      },
      reserve: (p) => {
        stopping.active = false; // the worker halts while this claim is out
        return p.wanted;
      },
    });
    poller.start();
    await poller.settled;
    expect(dispatched).toEqual([]);
    expect(released).toEqual(['t0', 't1']);
  });

  it('reports a failed claim and retries it after a backoff, not at the next sweep', async () => {
    // The retry's jitter and the first sweep's spread both come from Math.random. Unpinned, a
    // first sweep drawn under the second left of this test (about one run in sixty) claimed a
    // third time within it: 0.5 puts the retry at 38 ms and that sweep at 30 s.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    const failure = new Error('connection lost');
    const { poller, limits, errors, dispatched } = setUp([failure, reply(1)]);
    poller.start();
    await poller.settled;
    expect(errors).toEqual([failure]);
    expect(limits).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1_000);
    await poller.settled;
    expect(limits).toHaveLength(2);
    expect(dispatched).toEqual([1]);
    poller.halt();
  });

  it('claims at once when woken while sleeping, and remembers a wake-up that came during a claim', async () => {
    let wakeDuringClaim: (() => void) | undefined;
    const { poller, limits } = setUp([reply(0), reply(0), reply(0)], {
      dispatch: () => wakeDuringClaim?.(),
    });
    poller.start();
    await poller.settled;
    expect(limits).toHaveLength(1);
    poller.wake(0);
    await poller.settled;
    expect(limits).toHaveLength(2);
    // A schedule lands while the next claim is out, due at once: the poller must not sleep a sweep.
    wakeDuringClaim = () => poller.wake(0);
    poller.sweepNow();
    await poller.settled;
    wakeDuringClaim = undefined;
    await jest.advanceTimersByTimeAsync(5);
    await poller.settled;
    expect(limits).toHaveLength(4);
    poller.halt();
  });

  it('sets no timer once halted', async () => {
    const { poller, limits } = setUp([reply(0)]);
    poller.start();
    await poller.settled;
    poller.halt();
    await jest.advanceTimersByTimeAsync(10 * SWEEP_MS);
    expect(limits).toHaveLength(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
