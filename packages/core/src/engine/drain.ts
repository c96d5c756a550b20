import { TimeoutsStoppedError } from '../errors/timeouts-stopped.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { settledWithin } from '../support/settled-within.js';
import type { TopicWorker } from './topic-worker.js';

/**
 * The first two steps of a shutdown (the engine's `stop`), over every topic worker:
 * 1. drain: stop claiming and wait up to `drainMs` for running handlers;
 * 2. hand back, one round trip bounded by `commandTimeoutMs`: release the timeouts of handlers
 *    still running (their `signal` aborted with `TimeoutsStoppedError`) and of claims that came
 *    back after the halt, send the acks and failure records of finished handlers.
 * Only the second waits on Redis. What it has not answered in time is left to lease expiry.
 * Resolves with what is left of step 2's budget (ms), for the close that follows.
 */
export async function drainWorkers(workers: readonly TopicWorker[], drainMs: number, commandTimeoutMs: number): Promise<number> {
  for (const worker of workers) worker.halt();
  const drained = await Promise.all(workers.map((worker) => worker.waitForHandlers(drainMs)));
  const handBackEnd = performance.now() + commandTimeoutMs;
  const reason = new TimeoutsStoppedError(errorMessages.stopped('handler (drainMs passed)'));
  const handBack = workers.flatMap((worker, i) => [
    drained[i] ? Promise.resolve() : worker.releaseRunning(reason),
    // A claim already out comes back after halt: its timeouts are released, not run.
    worker.pollersSettled(),
    worker.idle(),
  ]);
  await settledWithin(Promise.all(handBack), commandTimeoutMs);
  return Math.max(0, handBackEnd - performance.now());
}
