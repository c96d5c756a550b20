import type { Scenario } from '../harness/rig.js';
import { poison } from './poison.js';
import { lostReplies, redisCrash, redisStall } from './redis-faults.js';
import { scale } from './scale.js';
import { aclTls, hostileInput } from './security.js';
import { baseline, clockSkew, rollingRestart, workerPause, workerSigkill } from './worker-faults.js';

/** The twelve scenarios of the suite, in the order of issue 6. */
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
];
