/** What the capacity needs of a slot poller: how much its next claim asks for, and how to resume it. */
export interface CapacityClaimant {
  /** How many timeouts the poller's next claim asks for. */
  readonly wanted: number;
  /** Claims now (a parked poller resumed). */
  runNow(): void;
}

/**
 * How many handlers of one topic may start: `concurrency` shared between the handlers running
 * and the claims out, which reserve what they ask for until they come back. A poller that cannot
 * claim a useful batch (a quarter of `concurrency`, or its batch when smaller) parks, and is
 * resumed in order once capacity frees, not for every single handler that finishes.
 */
export class ClaimCapacity {
  private readonly parked: CapacityClaimant[] = [];
  private readonly minClaim: number;
  private running = 0;
  private reserved = 0;

  constructor(
    private readonly concurrency: number,
    batchSize: number,
    /** False while the topic is halted: nothing is resumed. */
    private readonly active: () => boolean,
  ) {
    this.minClaim = Math.min(batchSize, Math.max(1, Math.floor(concurrency / 4)));
  }

  /** Handlers running now. */
  get inFlight(): number {
    return this.running;
  }

  /** How many timeouts `claimant` may claim now (at most its `wanted`), reserved until `unreserve`; 0 parks it. */
  reserve(claimant: CapacityClaimant): number {
    const { wanted } = claimant;
    const free = this.freeCapacity(wanted);
    if (free === 0) {
      if (!this.parked.includes(claimant)) this.parked.push(claimant);
      return 0;
    }
    const limit = Math.min(wanted, free);
    this.reserved += limit;
    return limit;
  }

  /** Ends a reservation made by `reserve`. */
  unreserve(limit: number): void {
    this.reserved -= limit;
    this.resumeParked();
  }

  /** A handler started. */
  started(): void {
    this.running++;
  }

  /** A handler ended (call `resumeParked` once its ending is dealt with). */
  finished(): void {
    this.running--;
  }

  /** Forgets a parked poller (its slot is no longer polled). */
  unpark(claimant: CapacityClaimant): void {
    const parkedAt = this.parked.indexOf(claimant);
    if (parkedAt >= 0) this.parked.splice(parkedAt, 1);
  }

  /** Forgets every parked poller (the topic halts). */
  unparkAll(): void {
    this.parked.length = 0;
  }

  /** Resumes parked pollers, oldest first, while a useful batch can be claimed. */
  resumeParked(): void {
    while (this.parked.length > 0 && this.active() && this.freeCapacity(this.parked[0]!.wanted) > 0) this.parked.shift()!.runNow();
  }

  /** Capacity a claim asking for `wanted` may reserve now; 0 parks it. */
  private freeCapacity(wanted: number): number {
    const free = this.concurrency - this.running - this.reserved;
    if (free <= 0) return 0;
    // A poller waits for a useful batch, unless nothing else is running or being claimed.
    return free >= Math.min(wanted, this.minClaim) || this.running + this.reserved === 0 ? free : 0;
  }
}
