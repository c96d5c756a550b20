import { execFileSync } from 'node:child_process';
import { setPriority } from 'node:os';
import type { Redis } from 'ioredis';
import { SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';

/** Claim script calls are the only ones given the slot's `:seq` key. */
function isClaimEntry(args: readonly string[]): boolean {
  return args.some((arg) => arg.endsWith(':seq'));
}

/** Worst duration (µs) of the claim script among the SLOWLOG entries, and how many claims it saw. */
export function worstClaimMicros(entries: ReadonlyArray<[number, number, number, string[], ...unknown[]]>): { worst: number; claims: number; p99: number; median: number } {
  const durations = entries.filter((entry) => isClaimEntry(entry[3])).map((entry) => entry[2]).sort((a, b) => a - b);
  const at = (quantile: number) => (durations.length ? durations[Math.min(durations.length - 1, Math.floor(quantile * durations.length))]! : 0);
  return { worst: durations.at(-1) ?? 0, claims: durations.length, p99: at(0.99), median: at(0.5) };
}

/**
 * SLOWLOG measures wall time: on a shared test machine the server is preempted mid-script by
 * unrelated processes, which says nothing of the script. For the measured phase the server's main
 * thread gets a real-time scheduling class (`chrt`, when permitted) or a higher priority, which
 * approximates the dedicated host Redis runs on. Returns how, and a function that undoes it.
 */
function shieldFromNeighbours(pid: number | undefined): { how: string; undo: () => void } {
  if (pid === undefined) return { how: 'unchanged', undo: () => undefined };
  try {
    execFileSync('chrt', ['-f', '-p', '10', String(pid)], { stdio: 'ignore' });
    return { how: 'SCHED_FIFO (chrt) while measured', undo: () => chrtOther(pid) };
  } catch {
    try {
      setPriority(pid, -10);
      return { how: 'nice -10 while measured', undo: () => setPriority(pid, 0) };
    } catch {
      return { how: 'unchanged (not permitted here)', undo: () => undefined };
    }
  }
}

function chrtOther(pid: number): void {
  try {
    execFileSync('chrt', ['-o', '-p', '0', String(pid)], { stdio: 'ignore' });
  } catch {
    // the server may be gone already
  }
}

async function slowlog(admin: Redis): Promise<Array<[number, number, number, string[]]>> {
  return (await admin.call('SLOWLOG', 'GET', '-1')) as Array<[number, number, number, string[]]>;
}

/**
 * 10. 100,000 pending (10,000 in --quick) with bursts due at one instant: the claim script's worst
 * time in SLOWLOG (every command logged) stays under a few milliseconds; bursts all fire.
 */
export const scale: Scenario = {
  name: 'scale',
  run: (context) =>
    withRig(
      'scale',
      context,
      { redis: { args: ['--slowlog-log-slower-than', '0', '--slowlog-max-len', '1000000'] } },
      async (rig) => {
        const pending = context.quick ? 10_000 : 100_000;
        const bursts = context.quick ? 2 : 3;
        const burstSize = context.quick ? 1_500 : 5_000;
        const limitMicros = 5_000;
        const admin = rig.redis.client();
        const loadStarted = Date.now();
        for (let start = 0; start < pending; start += 5_000) {
          await Promise.all(
            Array.from({ length: Math.min(5_000, pending - start) }, (_, i) =>
              rig.engine.schedule(rig.topic, `far-${start + i}`, { delayMs: 3_600_000, payload: { n: start + i } }),
            ),
          );
        }
        const loadMs = Date.now() - loadStarted;
        await rig.pool.start(3);
        const shield = shieldFromNeighbours(rig.redis.pid);
        await admin.call('SLOWLOG', 'RESET');
        const drains: number[] = [];
        for (let burst = 0; burst < bursts; burst += 1) {
          const scheduledBefore = rig.expected.size;
          await rig.schedule(Array.from({ length: burstSize }, (_, i) => ({ id: `burst-${burst}-${i}`, delayMs: 1_000, payload: { burst } })));
          const started = Date.now();
          await rig.settle(60_000, { pending });
          drains.push(Date.now() - started - 1_000);
          if (rig.expected.size !== scheduledBefore + burstSize) break;
        }
        const settled = await rig.settle(SWEEP_MS + 10_000, { pending });
        shield.undo();
        const entries = await slowlog(admin);
        const { worst, claims, p99, median } = worstClaimMicros(entries);
        const memory = await admin.info('memory');
        const usedBytes = Number(/used_memory:(\d+)/.exec(memory)?.[1] ?? 0);
        return rig.result(
          { maxLost: 0, maxDuplicateEffects: 0, maxDuplicateDeliveries: 0, boundMs: 15_000 },
          [
            { name: 'settled (bursts fired, the far ones still pending)', ok: settled },
            { name: `claim script worst time in SLOWLOG < ${limitMicros / 1000} ms`, ok: claims > 0 && worst < limitMicros, detail: `${worst} µs over ${claims} claims` },
          ],
          [
            `${pending} pending (scheduled in ${loadMs} ms), ${bursts} bursts of ${burstSize} due at one instant`,
            `claim script: worst ${worst} µs, p99 ${p99} µs, median ${median} µs over ${claims} calls (SLOWLOG, every command logged)`,
            `redis-server scheduling: ${shield.how}`,
            `bursts drained in ${drains.join(', ')} ms after their due time; Redis used_memory ${Math.round(usedBytes / 1_048_576)} MiB`,
          ],
        );
      },
    ),
};
