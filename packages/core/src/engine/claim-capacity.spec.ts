import { describe, expect, it } from '@jest/globals';
import { resolveOptions } from '../validation/options.js';
import { ClaimCapacity, type CapacityClaimant } from './claim-capacity.js';

/** The capacity of topic `payment` as a worker builds it from the topic's options, with 16 pollers asking. */
function capacity(concurrency: number, batchSize: number): { capacity: ClaimCapacity; pollers: { wanted: number; runNow(): void }[] } {
  const options = resolveOptions({ connection: 'redis://unused', topics: { payment: { concurrency, batchSize } } }).topics.get('payment')!;
  const pollers = Array.from({ length: options.slots }, () => ({ wanted: 0, runNow: () => undefined }));
  return { capacity: new ClaimCapacity(options.concurrency, options.batchSize, () => true), pollers };
}

/** Reserves for `poller` as its next claim asking for `wanted`. */
function reserveFor(capacity: ClaimCapacity, poller: CapacityClaimant & { wanted: number }, wanted: number): number {
  poller.wanted = wanted;
  return capacity.reserve(poller);
}

describe('claim reservations of a topic', () => {
  it('parks a poller asking for a full batch once claims out hold the capacity', () => {
    const { capacity: topic, pollers } = capacity(256, 100);
    const [a, b, c] = pollers;
    expect(reserveFor(topic, a!, 100)).toBe(100);
    expect(reserveFor(topic, b!, 100)).toBe(100);
    // 56 left, below a useful batch (a quarter of 256): parked until a claim comes back.
    expect(reserveFor(topic, c!, 100)).toBe(0);
    topic.unreserve(100);
    expect(reserveFor(topic, c!, 100)).toBe(100);
  });

  it('lets every slot of a trickle claim at once: small batches do not park each other', () => {
    const { capacity: topic, pollers } = capacity(256, 100);
    const limits = pollers.map((poller) => reserveFor(topic, poller, 16));
    expect(limits).toEqual(Array.from({ length: 16 }, () => 16));
  });

  it('never reserves more than the concurrency', () => {
    const { capacity: topic, pollers } = capacity(40, 100);
    const limits = pollers.slice(0, 4).map((poller) => reserveFor(topic, poller, 16));
    // 8 left after two claims: below a useful batch (a quarter of 40), so the others wait.
    expect(limits).toEqual([16, 16, 0, 0]);
    topic.unreserve(16);
    expect(reserveFor(topic, pollers[2]!, 100)).toBe(24);
  });
});
