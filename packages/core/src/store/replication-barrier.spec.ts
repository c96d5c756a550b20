import { describe, expect, it } from '@jest/globals';
import { DurabilityUnconfirmedError } from './durability-unconfirmed.error.js';
import { InvalidStoreOptionError } from './invalid-store-option.error.js';
import { ReplicationBarrier, resolveDurability, type WaitConnection } from './replication-barrier.js';

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
    expect(resolveDurability({ replicas: 1 })).toEqual({ replicas: 1, timeoutMs: 500, onUnavailable: 'refuse' });
    expect(resolveDurability(undefined)).toBeUndefined();
  });

  it.each([
    [{ replicas: 0 }, /replicas is 0/],
    [{ replicas: 1.5 }, /replicas is 1.5/],
    [{ replicas: 1, timeoutMs: 0 }, /timeoutMs is 0/],
    [{ replicas: 1, onUnavailable: 'ignore' }, /onUnavailable is "ignore"/],
    [{ replicas: 1, replica: 2 }, /unknown field replica/],
    [null, /got null/],
  ])('refuses %j with a typed error', (options, problem) => {
    expect(() => resolveDurability(options as never)).toThrow(InvalidStoreOptionError);
    expect(() => resolveDurability(options as never)).toThrow(problem);
  });
});

describe('ReplicationBarrier', () => {
  it('lets calls made while no WAIT is in flight share one, and later calls share the next', async () => {
    const connection = new ManualWaits();
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 500, onUnavailable: 'refuse' }, connection, null);
    const settled: string[] = [];
    const first = [1, 2, 3].map((i) => barrier.confirm('schedule').then(() => settled.push(`a${i}`)));
    await tick();
    expect(connection.waits).toHaveLength(1);
    expect(connection.waits[0]).toMatchObject({ replicas: 1, timeoutMs: 500 });
    // Writes acknowledged while that WAIT is out are not covered by it: they wait for the next.
    const second = [1, 2].map((i) => barrier.confirm('cancel').then(() => settled.push(`b${i}`)));
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
    const barrier = new ReplicationBarrier({ replicas: 2, timeoutMs: 100, onUnavailable: 'refuse' }, connection, null);
    const call = barrier.confirm('schedule');
    await tick();
    connection.waits[0]!.answer(1);
    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DurabilityUnconfirmedError);
    expect(error).toMatchObject({ operation: 'schedule', required: 2, confirmed: 1 });
    expect((error as Error).message).toMatch(/1 of 2 replica\(s\) confirmed it within 100 ms/);
    const failing = barrier.confirm('cancel');
    await tick();
    connection.waits[1]!.fail(new Error('Connection is closed.'));
    await expect(failing).rejects.toMatchObject({ confirmed: 0 });
  });

  it('does not trust a WAIT sent on a connection re-established after the write', async () => {
    const connection = new ManualWaits();
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 100, onUnavailable: 'refuse' }, connection, null);
    const call = barrier.confirm('schedule');
    await tick();
    connection.currentEpoch++;
    connection.waits[0]!.answer(1);
    await expect(call).rejects.toBeInstanceOf(DurabilityUnconfirmedError);
  });

  it('resolves and warns (at most once per 10 s) under warn', async () => {
    const connection = new ManualWaits();
    const warnings: string[] = [];
    const logger = { log: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined };
    const barrier = new ReplicationBarrier({ replicas: 1, timeoutMs: 100, onUnavailable: 'warn' }, connection, logger);
    for (let i = 0; i < 3; i++) {
      const call = barrier.confirm('schedule');
      await tick();
      connection.waits[i]!.answer(0);
      await expect(call).resolves.toBeUndefined();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/0 of 1 replica/);
  });
});
