import type { PartitionNet } from '@durable-timeout/redis-testing';
import { isMaster, isReplica, NODE_TIMEOUT_MS, startPartitionCluster } from '../harness/partition-cluster.js';
import type { Scenario } from '../harness/rig.js';
import { splitBrainScenario, type SplitDeployment } from './split-brain.js';

/** A 3-master, 3-replica cluster; the cut takes the first master away from every other node. */
async function clusterDeployment(net: PartitionNet): Promise<SplitDeployment> {
  const cluster = await startPartitionCluster(net);
  return {
    connection: cluster.connection,
    minority: [cluster.master.host],
    majority: cluster.nodes.filter((node) => node !== cluster.master).map((node) => node.host),
    promoted: () => isMaster(cluster.replicaOfMaster),
    demoted: () => isReplica(cluster.master),
    cutMs: (quick) => (quick ? 5 : 8) * NODE_TIMEOUT_MS,
    describe: `cluster-node-timeout ${NODE_TIMEOUT_MS} ms, 3 masters and 3 replicas`,
  };
}

/**
 * A Cluster master with one producer and one worker on its side, cut off from the other masters
 * and every replica for longer than `cluster-node-timeout`, then healed. Durability off: the loss
 * (what the isolated master accepted before it stopped taking writes) is measured.
 */
export const clusterMinorityMaster: Scenario = { ...splitBrainScenario({ name: 'cluster-minority-master' }, clusterDeployment), fullOnly: true };
/** Durability on (`refuse`): nothing acknowledged may be lost. */
export const clusterMinorityMasterDurable: Scenario = {
  ...splitBrainScenario({ name: 'cluster-minority-master-durable', durability: { replicas: 1, onUnavailable: 'refuse' } }, clusterDeployment),
  fullOnly: true,
};
