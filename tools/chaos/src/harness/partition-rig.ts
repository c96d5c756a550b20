import { PartitionNet, PartitionUnavailableError, partitionsExpected } from '@durable-timeout/redis-testing';
import { uncountedResult, type RunContext, type ScenarioResult } from './rig.js';

/**
 * The result of a partition scenario this machine could not run: "not run" (never a pass), or a
 * failure when the machine should have been able to run it (Linux, root, `ip` present).
 */
export function partitionNotRun(name: string, error: PartitionUnavailableError): ScenarioResult {
  if (partitionsExpected()) return uncountedResult(name, [`not run, although this machine should be able to: ${error.message}`]);
  return { ...uncountedResult(name, []), pass: false, notRun: error.message };
}

/** Runs `body` on a fresh partition network, always destroyed after; "not run" when none can be built. */
export async function withPartitionNet(name: string, body: (net: PartitionNet) => Promise<ScenarioResult>): Promise<ScenarioResult> {
  let net: PartitionNet;
  try {
    net = await PartitionNet.create();
  } catch (error) {
    if (error instanceof PartitionUnavailableError) return partitionNotRun(name, error);
    throw error;
  }
  try {
    return await body(net);
  } finally {
    await net.destroy();
  }
}

/**
 * Starts the effects store on a host of its own, which no cut ever touches (the handlers in the
 * namespaces cannot reach the runner's loopback), and returns the run context that records there.
 */
export async function partitionContext(net: PartitionNet, context: RunContext): Promise<RunContext> {
  const effects = await net.startRedis(net.addHost('effects'));
  return { ...context, effectsUrl: effects.url, effectsClient: effects.client({ maxRetriesPerRequest: 3 }) };
}
