/**
 * Estimates the store's clock (the Redis server clock) on this machine, from the `now` every claim
 * returns. It never reads `Date.now()`: local time comes from the monotonic `performance.now()`, so
 * a skewed or stepped application clock changes nothing.
 *
 * Like NTP, a sample taken by a call with round trip `rtt` places the server time at the middle of
 * the call, within +-rtt/2; the sample with the smallest round trip wins, aged slowly so drift is
 * followed. A sample that disagrees with the estimate by more than both error bounds means the
 * store clock jumped (a manual test clock, a server clock step) and replaces it at once.
 */
export class ServerClock {
  private offset = 0;
  private bestRtt = Number.POSITIVE_INFINITY;
  private bestAt = 0;

  /** Whether a sample has been taken. */
  get known(): boolean {
    return this.bestRtt !== Number.POSITIVE_INFINITY;
  }

  /**
   * Records the store time `serverNow` read by a call sent at `sentAt` and answered at
   * `receivedAt` (both `performance.now()`).
   */
  sample(serverNow: number, sentAt: number, receivedAt: number): void {
    const rtt = Math.max(0, receivedAt - sentAt);
    const offset = serverNow - (sentAt + receivedAt) / 2;
    // Grow the kept sample's error bound by 0.1 ms a second: far above real clock drift, so a
    // fresher sample takes over well before the kept one could be wrong by that much.
    const agedRtt = this.bestRtt + (receivedAt - this.bestAt) / 10_000;
    const jumped = Math.abs(offset - this.offset) > (rtt + this.bestRtt) / 2 + 1;
    if (rtt <= agedRtt || jumped) {
      this.offset = offset;
      this.bestRtt = rtt;
      this.bestAt = receivedAt;
    }
  }

  /** Estimated store time now, in ms since the epoch. */
  now(): number {
    return performance.now() + this.offset;
  }

  /** Milliseconds from now until store time `at` (negative when it has passed). */
  msUntil(at: number): number {
    return at - this.now();
  }
}
