import { describe, expect, it } from '@jest/globals';
import { DurabilityUnconfirmedError } from './durability-unconfirmed.error.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';
import type { Redis } from 'ioredis';
import { ReplicationBarrier, replicaWait, resolveDurability, singleWaitRouter, type WaitConnection, type WaitRouter } from './replication-barrier.js';

/** A connection whose WAITs the test answers by hand. */
class ManualWaits implements WaitConnection {
  readonly waits: { replicas: number; timeoutMs: number; answer: (n: number) => void; fail: (error: Error) => void }[] = [];
  currentEpoch = 0;

  wait(replicas: number, timeoutMs: number): Promise<number> {
    return new Promise((answer, fail) => this.waits.push({ replicas, timeoutMs, answer, fail }));
  }

  epoch(): number {
    return this.currentEpoch;
  }
}

/** Lets the barrier send what it groups (it sends at the end of a turn of the event loop). */
const tick = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('resolveDurability', () => {
  it('fills in the defaults', () => {
    expect(resolveDurability({ replicas: 1 })).toEqual({ replicas: 1, timeoutMs: 500, onUnavailable: 'refuse', aof: false });
    expect(resolveDurability(undefined)).toBeUndefined();
  });

  it.each([
    [{ replicas: 0 }, /replicas is 0/],
    [{ replicas: 1.5 }, /replicas is 1.5/],
    [{ replicas: 1, timeoutMs: 0 }, /timeoutMs is 0/],
    [{ replicas: 1, onUnavailable: 'ignore' }, /onUnavailable is "ignore"/],
    [{ replicas: 1, replica: 2 }, /unknown field replica/],
    [{ replicas: 1, aof: 'yes' }, /aof is "yes"/],
    [null, /got null/],
  ])('refuses %j with a typed error', (options, problem) => {
    expect(() => resolveDurability(options as never)).toThrow(InvalidStoreOptionError);
    expect(() => resolveDurability(options as never)).toThrow(problem);
  });
});

describe('ReplicationBarrier', () => {
  it('lets calls made while no WAIT is in flight share one, and later calls share the next', async () => {
    const connection = new ManualWaits();
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 500, onUnavailable: 'refuse', aof: false }, singleWaitRouter(connection), null);
    const settled: string[] = [];
    const first = [1, 2, 3].map((i) => barrier.confirm('schedule', barrier.track('k')).then(() => settled.push(`a${i}`)));
    await tick();
    expect(connection.waits).toHaveLength(1);
    expect(connection.waits[0]).toMatchObject({ replicas: 1, timeoutMs: 500 });
    // Writes acknowledged while that WAIT is out are not covered by it: they wait for the next.
    const second = [1, 2].map((i) => barrier.confirm('cancel', barrier.track('k')).then(() => settled.push(`b${i}`)));
    await tick();
    expect(connection.waits).toHaveLength(1);
    connection.waits[0]!.answer(1);
    await Promise.all(first);
    await tick();
    expect(settled).toEqual(['a1', 'a2', 'a3']);
    expect(connection.waits).toHaveLength(2);
    connection.waits[1]!.answer(2);
    await Promise.all(second);
    expect(settled).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
  });

  it('refuses with a typed error when too few replicas confirm, or the WAIT fails', async () => {
    const connection = new ManualWaits();
    const barrier = new ReplicationBarrier({ replicas: 2, timeoutMs: 100, onUnavailable: 'refuse', aof: false }, singleWaitRouter(connection), null);
    const call = barrier.confirm('schedule', barrier.track('k'));
    await tick();
    connection.waits[0]!.answer(1);
    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DurabilityUnconfirmedError);
    expect(error).toMatchObject({ operation: 'schedule', required: 2, confirmed: 1 });
    expect((error as Error).message).toMatch(/1 of 2 replica\(s\) confirmed it within 100 ms/);
    const failing = barrier.confirm('cancel', barrier.track('k'));
    await tick();
    connection.waits[1]!.fail(new Error('Connection is closed.'));
    await expect(failing).rejects.toMatchObject({ confirmed: 0 });
  });

  it('does not trust a WAIT sent on a connection re-established after the write', async () => {
    const connection = new ManualWaits();
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 100, onUnavailable: 'refuse', aof: false }, singleWaitRouter(connection), null);
    const call = barrier.confirm('schedule', barrier.track('k'));
    await tick();
    connection.currentEpoch++;
    connection.waits[0]!.answer(1);
    await expect(call).rejects.toBeInstanceOf(DurabilityUnconfirmedError);
  });

  it('resolves and warns (at most once per 10 s) under warn', async () => {
    const connection = new ManualWaits();
    const warnings: string[] = [];
    const logger = { log: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined };
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 100, onUnavailable: 'warn', aof: false }, singleWaitRouter(connection), logger);
    for (let i = 0; i < 3; i++) {
      const call = barrier.confirm('schedule', barrier.track('k'));
      await tick();
      connection.waits[i]!.answer(0);
      await expect(call).resolves.toBeUndefined();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/0 of 1 replica/);
  });
});

describe('ReplicationBarrier on several connections (a cluster: one per master)', () => {
  const refuse = { replicas: 1, timeoutMs: 100, onUnavailable: 'refuse', aof: false } as const;

  /** Keys routed to named connections; the test moves them. */
  class ManualRouter implements WaitRouter {
    readonly owners = new Map<string, ManualWaits | undefined>();
    connectionFor(key: string): WaitConnection | undefined {
      return this.owners.get(key);
    }
  }

  it('sends one WAIT per connection the writes went out on, and answers each call from its own', async () => {
    const [a, b] = [new ManualWaits(), new ManualWaits()];
    const router = new ManualRouter();
    router.owners.set('slot-a', a).set('slot-a2', a).set('slot-b', b);
    const barrier = new ReplicationBarrier(refuse, router, null);
    const onA = ['slot-a', 'slot-a2', 'slot-a'].map((key) => barrier.confirm('schedule', barrier.track(key)));
    const onB = barrier.confirm('schedule', barrier.track('slot-b'));
    await tick();
    expect(a.waits).toHaveLength(1);
    expect(b.waits).toHaveLength(1);
    a.waits[0]!.answer(1);
    b.waits[0]!.answer(0);
    await expect(Promise.all(onA)).resolves.toHaveLength(3);
    await expect(onB).rejects.toMatchObject({ confirmed: 0 });
  });

  it('does not confirm a write whose key moved to another master before its WAIT, and sends none there', async () => {
    const [a, b] = [new ManualWaits(), new ManualWaits()];
    const router = new ManualRouter();
    router.owners.set('slot', a);
    const barrier = new ReplicationBarrier(refuse, router, null);
    const ticket = barrier.track('slot');
    router.owners.set('slot', b);
    await expect(barrier.confirm('schedule', ticket)).rejects.toMatchObject({ confirmed: 0 });
    expect(a.waits).toHaveLength(0);
    expect(b.waits).toHaveLength(0);
  });

  it('refuses while the key has no known master, and waits where the key went once the write was routed', async () => {
    const a = new ManualWaits();
    const router = new ManualRouter();
    const barrier = new ReplicationBarrier(refuse, router, null);
    await expect(barrier.confirm('schedule', barrier.track('slot'))).rejects.toMatchObject({ confirmed: 0 });
    // Not connected at the write (no slot map yet): the master that answered is the one mapped now.
    const ticket = barrier.track('slot');
    router.owners.set('slot', a);
    const call = barrier.confirm('schedule', ticket);
    await tick();
    expect(a.waits).toHaveLength(1);
    a.waits[0]!.answer(1);
    await expect(call).resolves.toBeUndefined();
  });
});

describe('replicaWait', () => {
  /** The calls a connection got, and a server that knows WAITAOF or not. */
  function fakeClient(knowsWaitAof: boolean) {
    const sent: string[] = [];
    const client = {
      wait: (replicas: number, timeoutMs: number) => {
        sent.push(`wait ${replicas} ${timeoutMs}`);
        return Promise.resolve(1);
      },
      call: (...args: string[]) => {
        sent.push(args.join(' '));
        if (args[0] === 'command') return Promise.resolve(knowsWaitAof ? [['waitaof', 4]] : [null]);
        return Promise.resolve([0, 2]);
      },
    };
    return { client: client as unknown as Redis, sent };
  }

  it('sends WAIT without aof', async () => {
    const { client, sent } = fakeClient(true);
    await expect(replicaWait(false, null)(client, 1, 300)).resolves.toBe(1);
    expect(sent).toEqual(['wait 1 300']);
  });

  it('sends WAITAOF (replicas only) where the server has it, asking once', async () => {
    const { client, sent } = fakeClient(true);
    const send = replicaWait(true, null);
    await expect(send(client, 2, 300)).resolves.toBe(2);
    await send(client, 2, 300);
    expect(sent).toEqual(['command info waitaof', 'waitaof 0 2 300', 'waitaof 0 2 300']);
  });

  it('falls back to WAIT with one warning on a server without WAITAOF', async () => {
    const { client, sent } = fakeClient(false);
    const warnings: string[] = [];
    const send = replicaWait(true, { log: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined });
    await send(client, 1, 300);
    await send(client, 1, 300);
    expect(sent).toEqual(['command info waitaof', 'wait 1 300', 'wait 1 300']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/no WAITAOF \(Redis 7\.2\+\)/);
  });
});
