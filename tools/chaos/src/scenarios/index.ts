import type { Scenario } from '../harness/rig.js';
import { poison } from './poison.js';
import { lostReplies, redisCrash, redisStall } from './redis-faults.js';
import { scale } from './scale.js';
import { aclTls, hostileInput } from './security.js';
import { baseline, clockSkew, rollingRestart, workerPause, workerSigkill } from './worker-faults.js';
import { corruptEntries, crashLoop, slotMigration } from './hardening.js';
import { storeModel } from './store-model.js';
import { workerPartition } from './worker-partition.js';
import { subscriberPartition } from './subscriber-partition.js';
import { clusterMinorityMaster, clusterMinorityMasterDurable } from './cluster-minority-master.js';
import { sentinelSplitBrain, sentinelSplitBrainDurable, sentinelSplitBrainMinReplicas } from './sentinel-split-brain.js';
import { longHandlers, longHandlersRolling } from './long-handlers.js';
import { outageCatchUp, pauseUnderLoad } from './flow-control.js';
import {
  clusterFailover,
  clusterFailoverDurable,
  clusterFailoverLag,
  clusterFailoverLagDurable,
  sentinelFailover,
  sentinelFailoverDurable,
  sentinelFailoverLag,
  sentinelFailoverLagDurable,
} from './failover.js';
import { cronRestarts } from './cron-restarts.js';

/** The model-based check at length: run only when asked (`--model`), it takes minutes. */
export const ON_REQUEST: readonly Scenario[] = [storeModel];

/** The scenarios of the suite: the twelve of the first table of docs/RELIABILITY.md, then the hardening, long-handler, failover, partition, flow-control and schedule ones. */
export const SCENARIOS: readonly Scenario[] = [
  baseline,
  workerSigkill,
  rollingRestart,
  redisCrash,
  redisStall,
  workerPause,
  clockSkew,
  lostReplies,
  poison,
  scale,
  aclTls,
  hostileInput,
  crashLoop,
  slotMigration,
  corruptEntries,
  longHandlers,
  longHandlersRolling,
  clusterFailover,
  clusterFailoverDurable,
  sentinelFailover,
  sentinelFailoverDurable,
  sentinelFailoverLag,
  sentinelFailoverLagDurable,
  clusterFailoverLag,
  clusterFailoverLagDurable,
  workerPartition,
  subscriberPartition,
  sentinelSplitBrain,
  sentinelSplitBrainDurable,
  sentinelSplitBrainMinReplicas,
  clusterMinorityMaster,
  clusterMinorityMasterDurable,
  outageCatchUp,
  pauseUnderLoad,
  cronRestarts,
];
