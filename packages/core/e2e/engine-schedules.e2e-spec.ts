import { describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { DurableTimeouts } from '../src/durable-timeouts.js';
import type { CatchUpPolicy, ScheduleOccurrence } from '../src/recurring-types.js';
import { uniquePrefix, waitUntil, engineSuite } from './fixtures/engine-helpers.js';
import { buildCore, WorkerProcess } from './fixtures/worker-process.js';

let server: RedisServer;
const rig = engineSuite(
  () => {
    // The worker processes import the built package.
    buildCore();
    return RedisServer.start();
  },
  (started) => (server = started),
);

const SECOND = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The occurrence times in `runs` that ran more than once, and the whole seconds missing between the first and the last. */
function duplicatesAndGaps(runs: readonly number[]): { duplicates: number[]; gaps: number[] } {
  const sorted = [...runs].sort((a, b) => a - b);
  const duplicates = sorted.filter((at, i) => i > 0 && sorted[i - 1] === at);
  const gaps: number[] = [];
  for (let at = sorted[0]!; at <= sorted.at(-1)!; at += SECOND) if (!sorted.includes(at)) gaps.push(at);
  return { duplicates, gaps };
}

describe('recurring schedules on one Redis server', () => {
  it('a schedule every second on two instances fires each occurrence exactly once, and goes on when one of them stops', async () => {
    const prefix = uniquePrefix();
    const runs: { instance: string; at: number }[] = [];
    const open = (instance: string): DurableTimeouts => {
      const timeouts = rig.open({ connection: server.url, prefix, topics: { schedules: { slots: 2 } } });
      timeouts.schedules.handle('heartbeat', async (occurrence: ScheduleOccurrence) => {
        runs.push({ instance, at: occurrence.occurrenceAt });
        // Long enough that both instances often race for the same occurrence's claim.
        await sleep(50);
      });
      return timeouts;
    };
    const a = open('a');
    const b = open('b');
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.schedules.upsert('heartbeat', { everyMs: SECOND }), b.schedules.upsert('heartbeat', { everyMs: SECOND })]);
    await sleep(3 * SECOND);
    const beforeStop = runs.length;
    await a.stop({ drainMs: 5_000 });
    await sleep(3 * SECOND);
    const times = runs.map((run) => run.at);
    expect(beforeStop).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeGreaterThanOrEqual(beforeStop + 2);
    expect(duplicatesAndGaps(times)).toEqual({ duplicates: [], gaps: [] });
    // After the stop, b alone carried the chain on.
    expect(runs.slice(beforeStop).every((run) => run.instance === 'b')).toBe(true);
    expect(await b.schedules.list()).toEqual([expect.objectContaining({ name: 'heartbeat', everyMs: SECOND, state: expect.stringMatching(/pending|firing/) })]);
  }, 30_000);

  it('occurrences missed while no instance ran follow catchUp: all fires each, once fires one, skip fires none', async () => {
    const policies: CatchUpPolicy[] = ['all', 'once', 'skip'];
    const setups = await Promise.all(
      policies.map(async (catchUp) => {
        const prefix = uniquePrefix();
        const admin = rig.open({ connection: server.url, prefix, topics: { schedules: {} } });
        const upserted = await admin.schedules.upsert('gap', { everyMs: SECOND, catchUp });
        return { catchUp, prefix, first: upserted.nextAt };
      }),
    );
    // No instance handles the schedules while at least three occurrences pass.
    await sleep(3.5 * SECOND);
    const results = await Promise.all(
      setups.map(async ({ catchUp, prefix, first }) => {
        const seen: { at: number; missed: number }[] = [];
        const worker = rig.open({ connection: server.url, prefix, topics: { schedules: {} } });
        const startedAt = Date.now();
        worker.schedules.handle('gap', (occurrence) => void seen.push({ at: occurrence.occurrenceAt, missed: occurrence.missed }));
        await worker.start();
        await waitUntil(() => seen.some((run) => run.at > startedAt), 5_000);
        return { catchUp, first, startedAt, seen };
      }),
    );
    for (const { catchUp, first, startedAt, seen } of results) {
      const backlog = seen.filter((run) => run.at <= startedAt);
      const future = seen.filter((run) => run.at > startedAt);
      expect(future.length).toBeGreaterThanOrEqual(1);
      if (catchUp === 'all') {
        expect(backlog.length).toBeGreaterThanOrEqual(3);
        expect(duplicatesAndGaps(seen.map((run) => run.at))).toEqual({ duplicates: [], gaps: [] });
        expect(backlog[0]!.at).toBe(first);
      } else if (catchUp === 'once') {
        expect(backlog).toEqual([{ at: first, missed: expect.any(Number) }]);
        expect(backlog[0]!.missed).toBeGreaterThanOrEqual(2);
      } else {
        expect(backlog).toEqual([]);
      }
    }
  }, 30_000);

  it('remove while an occurrence runs: it runs to its end and no later occurrence fires', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { schedules: {} } });
    const runs: number[] = [];
    let removed: Promise<boolean> | undefined;
    timeouts.schedules.handle('once-only', async (occurrence) => {
      runs.push(occurrence.occurrenceAt);
      removed ??= timeouts.schedules.remove('once-only');
      await removed;
    });
    await timeouts.start();
    await timeouts.schedules.upsert('once-only', { everyMs: SECOND });
    await waitUntil(() => runs.length > 0, 5_000);
    expect(await removed).toBe(true);
    await sleep(2.2 * SECOND);
    expect(runs).toHaveLength(1);
    expect(await timeouts.schedules.list()).toEqual([]);
    expect(await timeouts.stats('schedules')).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  }, 20_000);

  it('a paused schedule fires nothing while its occurrences pass; resumed, it fires again', async () => {
    const prefix = uniquePrefix();
    const timeouts = rig.open({ connection: server.url, prefix, topics: { schedules: {} } });
    const runs: number[] = [];
    timeouts.schedules.handle('pausable', (occurrence) => void runs.push(occurrence.occurrenceAt));
    await timeouts.schedules.upsert('pausable', { everyMs: SECOND });
    expect(await timeouts.schedules.pause('pausable')).toBe(true);
    await timeouts.start();
    await sleep(2.5 * SECOND);
    expect(runs).toEqual([]);
    expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ name: 'pausable', paused: true })]);
    const resumedAt = Date.now();
    expect(await timeouts.schedules.resume('pausable')).toBe(true);
    await waitUntil(() => runs.length >= 2, 5_000);
    // Only occurrences after the resume ran: the ones passed while paused were skipped.
    expect(runs.every((at) => at > resumedAt - 100)).toBe(true);
    expect(await timeouts.schedules.list()).toEqual([expect.objectContaining({ name: 'pausable', paused: false })]);
  }, 20_000);

  it('an instance killed in the middle of an occurrence loses nothing: the occurrence runs again elsewhere and the chain goes on', async () => {
    const prefix = uniquePrefix();
    const env = { REDIS_URL: server.url, PREFIX: prefix, TOPIC: 'schedules', LEASE_MS: '1000', SWEEP_MS: '500' };
    const doomed = await WorkerProcess.start({ ...env, MODE: 'schedule-hang' });
    let survivor: WorkerProcess | undefined;
    try {
      const admin = rig.open({ connection: server.url, prefix, topics: { schedules: { slots: 4 } } });
      await admin.schedules.upsert('heartbeat', { everyMs: SECOND });
      // The first occurrence fires on the doomed instance (the only one running), which holds it until it is killed.
      await waitUntil(() => doomed.of('started').length > 0, 10_000);
      const held = doomed.of('started')[0]!.at;
      survivor = await WorkerProcess.start({ ...env, MODE: 'schedule' });
      await doomed.kill();
      await waitUntil(() => survivor!.of('started').filter((run) => run.at > held).length >= 2, 15_000);
      const survived = survivor.of('started');
      // The held occurrence ran again on the survivor (the lease of the killed one ran out), with a newer token.
      const rerun = survived.find((run) => run.at === held);
      expect(rerun).toBeDefined();
      expect(rerun!.attempt).toBeGreaterThanOrEqual(2);
      expect(rerun!.fencingToken).toBeGreaterThan(doomed.of('started')[0]!.fencingToken);
      // Every occurrence from the held one on ran on the survivor once (catchUp 'once' may fold the ones passed while the lease ran out).
      const after = survived.filter((run) => run.at >= held).map((run) => run.at);
      expect(new Set(after).size).toBe(after.length);
    } finally {
      await Promise.all([doomed.kill(), survivor?.stop()]);
    }
  }, 60_000);
});
