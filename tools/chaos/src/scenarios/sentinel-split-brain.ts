import type { PartitionNet } from '@durable-timeout/redis-testing';
import { DOWN_AFTER_MS, FAILOVER_TIMEOUT_MS, startPartitionSentinels } from '../harness/partition-sentinels.js';
import type { Scenario } from '../harness/rig.js';
import { splitBrainScenario, type SplitDeployment } from './split-brain.js';

/** `min-replicas-max-lag` of the variant that sets `min-replicas-to-write` (seconds). */
const MIN_REPLICAS_MAX_LAG_S = 2;

/**
 * A primary with two replicas and three sentinels, each on a host of its own; the cut takes the
 * primary away from all of them. `minReplicas` sets `min-replicas-to-write 1` on the primary.
 */
function sentinelDeployment(minReplicas: boolean) {
  return async (net: PartitionNet): Promise<SplitDeployment> => {
    const primaryArgs = minReplicas ? ['--min-replicas-to-write', '1', '--min-replicas-max-lag', String(MIN_REPLICAS_MAX_LAG_S)] : [];
    const group = await startPartitionSentinels(net, 2, primaryArgs);
    const oldPrimary = group.primary.client({ maxRetriesPerRequest: 1 });
    return {
      connection: group.connection,
      minority: [group.primary.host],
      majority: [...group.replicas.map((replica) => replica.host), ...group.sentinels.map((sentinel) => sentinel.host)],
      promoted: async () => (await group.primaryAddress()) !== group.primary.host.address,
      demoted: async () => /role:slave/.test(await oldPrimary.info('replication').catch(() => '')),
      cutMs: (quick) => (quick ? DOWN_AFTER_MS + FAILOVER_TIMEOUT_MS + 1_000 : 3 * (DOWN_AFTER_MS + FAILOVER_TIMEOUT_MS)),
      describe:
        `Sentinel down-after ${DOWN_AFTER_MS} ms, failover-timeout ${FAILOVER_TIMEOUT_MS} ms; ` +
        `min-replicas-to-write ${minReplicas ? `1 (max lag ${MIN_REPLICAS_MAX_LAG_S} s)` : 'off'}`,
    };
  };
}

/**
 * The partition that loses writes in a Sentinel deployment: the primary, with one producer and one
 * worker on its side, cut off from the sentinels, both replicas and the other clients for longer
 * than the failover takes, then healed. Durability off: what a split brain loses, measured.
 */
export const sentinelSplitBrain: Scenario = { ...splitBrainScenario({ name: 'sentinel-split-brain' }, sentinelDeployment(false)), fullOnly: true };
/** Durability on (`refuse`): nothing acknowledged may be lost. */
export const sentinelSplitBrainDurable = splitBrainScenario(
  { name: 'sentinel-split-brain-durable', durability: { replicas: 1, onUnavailable: 'refuse' } },
  sentinelDeployment(false),
);
/** Durability off, `min-replicas-to-write 1` on the primary: what Redis' own guard adds. */
export const sentinelSplitBrainMinReplicas: Scenario = {
  ...splitBrainScenario({ name: 'sentinel-split-brain-min-replicas' }, sentinelDeployment(true)),
  fullOnly: true,
};
