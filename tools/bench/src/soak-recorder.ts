import { fateOf, finalDueAt, orderIndexOf, type SoakPlan } from './soak-plan.js';

/** What a worker process reports every sample of a soak: its memory and CPU so far, and the fires since the last sample. */
export interface SoakSample {
  /** `process.memoryUsage()` of the worker: V8 heap in use and resident set size, bytes. */
  heapUsedBytes: number;
  rssBytes: number;
  /** CPU time of the worker process (user + system) since it started, microseconds. */
  cpuUs: number;
  /** Distinct orders fired since the soak was armed. */
  firedTotal: number;
  /** Since the last sample: lateness counts by whole ms ([ms, fires] pairs; first start of each id). */
  lateness: [number, number][];
  /** Since the soak was armed: starts beyond the first for an id, starts of ids not in the plan, starts of paid (cancelled) orders. */
  duplicates: number;
  unknown: number;
  firedAfterCancel: number;
}

/**
 * Records the handler starts of a soak in the worker process with memory that does not grow with
 * the soak: one byte per order (allocated when armed) and a lateness histogram emptied at every
 * sample, so that the worker's heap measures the system under test, not the recorder.
 */
export class SoakRecorder {
  private readonly seen: Uint8Array;
  private lateness = new Map<number, number>();
  private firedTotal = 0;
  private duplicates = 0;
  private unknown = 0;
  private firedAfterCancel = 0;

  constructor(
    private readonly plan: SoakPlan,
    private readonly now: () => number = Date.now,
  ) {
    this.seen = new Uint8Array(plan.count);
  }

  /** A handler started for `id`; `reportedDueAt` is the due time the system reports (null: the plan's). */
  record(id: string, reportedDueAt: number | null): void {
    const now = this.now();
    const index = orderIndexOf(this.plan, id);
    if (index === undefined) {
      this.unknown++;
      return;
    }
    if (this.seen[index]) {
      this.duplicates++;
      return;
    }
    this.seen[index] = 1;
    if (fateOf(index) === 'paid') {
      // Its cancel came too late (the scheduler fell behind): counted, kept out of the lateness.
      this.firedAfterCancel++;
      return;
    }
    this.firedTotal++;
    const ms = Math.round(now - (reportedDueAt ?? finalDueAt(this.plan, index)));
    this.lateness.set(ms, (this.lateness.get(ms) ?? 0) + 1);
  }

  /** The sample of now; starts the next lateness histogram. */
  sample(memory: { heapUsed: number; rss: number }, cpuUs: number): SoakSample {
    const lateness = [...this.lateness];
    this.lateness = new Map();
    return {
      heapUsedBytes: memory.heapUsed,
      rssBytes: memory.rss,
      cpuUs,
      firedTotal: this.firedTotal,
      lateness,
      duplicates: this.duplicates,
      unknown: this.unknown,
      firedAfterCancel: this.firedAfterCancel,
    };
  }
}
