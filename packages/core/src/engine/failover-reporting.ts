import { isFailoverSymptom } from '../store/failover.js';

/** How long a failover may last before its failures are errors rather than warnings (longer than Sentinel's or Cluster's usual detection). */
export const FAILOVER_GRACE_MS = 30_000;

/**
 * Decides whether a failure of a store call is a warning (a Redis failover in progress: the store
 * retries, the engine keeps going) or an error. Failover symptoms are warnings for the first
 * `FAILOVER_GRACE_MS` of a failover (from its first symptom until a store call succeeds again),
 * errors after that: a replica that never takes over is an outage.
 */
export class FailoverReporting {
  private since: number | undefined;

  constructor(
    private readonly graceMs = FAILOVER_GRACE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when `error` should be reported as a warning. */
  isWarning(error: unknown): boolean {
    if (!isFailoverSymptom(error)) return false;
    this.since ??= this.now();
    return this.now() - this.since < this.graceMs;
  }

  /** A store call succeeded: the failover is over. */
  healthy(): void {
    this.since = undefined;
  }
}
