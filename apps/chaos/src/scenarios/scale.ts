import type { Redis } from 'ioredis';
import { SWEEP_MS, withRig, type Scenario } from '../harness/rig.js';

/** Claim script calls are the only ones given the slot's `:seq` key. */
function isClaimEntry(args: readonly string[]): boolean {
  return args.some((arg) => arg.endsWith(':seq'));
}

/** Worst duration (µs) of the claim script among the SLOWLOG entries, and how many claims it saw. */
export function worstClaimMicros(entries: ReadonlyArray<[number, number, number, string[], ...unknown[]]>): { worst: number; claims: number } {
  let worst = 0;
  let claims = 0;
  for (const entry of entries) {
    if (!isClaimEntry(entry[3])) continue;
    claims += 1;
    worst = Math.max(worst, entry[2]);
  }
  return { worst, claims };
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
        const { worst, claims } = worstClaimMicros(await slowlog(admin));
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
            `claim script: worst ${worst} µs over ${claims} calls (SLOWLOG, every command logged)`,
            `bursts drained in ${drains.join(', ')} ms after their due time; Redis used_memory ${Math.round(usedBytes / 1_048_576)} MiB`,
          ],
        );
      },
    ),
};
