import { TimeoutsStoppedError } from '../errors/timeouts-stopped.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { settledWithin } from '../support/settled-within.js';
import type { DrainSummary, DurableTimeoutsEvents } from '../types.js';
import type { EventHub } from './event-hub.js';
import type { TopicWorker } from './topic-worker.js';

/** What the drain did (the `DrainSummary` but the total time), and what is left of step 2's budget. */
export type DrainOutcome = Omit<DrainSummary, 'tookMs'> & { closeWithinMs: number };

/**
 * The first two steps of a shutdown (the engine's `stop`), over every topic worker:
 * 1. drain: stop claiming and wait up to `drainMs` for running handlers;
 * 2. hand back, one round trip bounded by `commandTimeoutMs`: release the timeouts of handlers
 *    still running (their `signal` aborted with `TimeoutsStoppedError`) and of claims that came
 *    back after the halt, send the acks and failure records of finished handlers.
 * Only the second waits on Redis. What it has not answered in time is left to lease expiry.
 * Resolves with what it did (counted, the hand-backs from the `released` events of `events`) and
 * what is left of step 2's budget (ms), for the close that follows.
 */
export async function drainWorkers(workers: readonly TopicWorker[], drainMs: number, commandTimeoutMs: number, events: EventHub<DurableTimeoutsEvents>): Promise<DrainOutcome> {
  let handedBack = 0;
  const stopCounting = events.on('released', ({ count }) => (handedBack += count));
  const running = (): number => workers.reduce((sum, worker) => sum + worker.inFlight, 0);
  for (const worker of workers) worker.halt();
  const handlersRunning = running();
  const drained = await Promise.all(workers.map((worker) => worker.waitForHandlers(drainMs)));
  const handlersAborted = running();
  const handBackEnd = performance.now() + commandTimeoutMs;
  const reason = new TimeoutsStoppedError(errorMessages.stopped('handler (drainMs passed)'));
  const handBack = workers.flatMap((worker, i) => [
    drained[i] ? Promise.resolve() : worker.releaseRunning(reason),
    // A claim already out comes back after halt: its timeouts are released, not run.
    worker.pollersSettled(),
    worker.idle(),
  ]);
  await settledWithin(Promise.all(handBack), commandTimeoutMs);
  stopCounting();
  const closeWithinMs = Math.max(0, handBackEnd - performance.now());
  return { drainMs, handlersRunning, handlersFinished: handlersRunning - handlersAborted, handlersAborted, handedBack, closeWithinMs };
}
