import { dueAt, type DuePlan } from './workloads.js';

/** Ids due within this long of the plan's first due time count as the warm-up of a steady run. */
export const WARM_UP_MS = 1_000;

/** What a worker process reports about one run. */
export interface FireResult {
  /** Lateness of the first start of every id, ms. */
  lateness: number[];
  /** The same, for the ids due at least `WARM_UP_MS` after the first due time (steady workloads: the worker is warm). */
  latenessAfterWarmUp: number[];
  /** Handler starts, duplicates included. */
  fired: number;
  /** Starts beyond the first for an id. */
  duplicates: number;
  /** Starts whose id is not one of the plan's. */
  unknown: number;
  /** Date.now() of the first and the last handler start, null before any. */
  firstFireAt: number | null;
  lastFireAt: number | null;
  /** CPU time of the worker process (user + system) since the recorder was armed, microseconds. */
  cpuUs: number;
  /** Commands the worker process sent to Redis since the recorder was armed (script calls count once). */
  redisCalls: number;
}

/**
 * Records handler starts in a worker process: lateness against the due time the system reports
 * (durable-timeout's `event.dueAt`) or, when it reports none, the plan's due time of the id.
 */
export class FireRecorder {
  private plan: DuePlan | undefined;
  private seen = new Uint8Array(0);
  private lateness: number[] = [];
  private latenessAfterWarmUp: number[] = [];
  private fired = 0;
  private duplicates = 0;
  private unknown = 0;
  private firstFireAt: number | null = null;
  private lastFireAt: number | null = null;
  private cpuAtArm = process.cpuUsage();
  private callsAtArm = 0;

  /** `callsSoFar` counts the commands the process has sent to Redis (none by default). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly callsSoFar: () => number = () => 0,
  ) {}

  /** Starts a run: forget earlier starts, expect the ids of `plan`. */
  arm(plan: DuePlan): void {
    this.plan = plan;
    this.seen = new Uint8Array(plan.count);
    this.lateness = [];
    this.latenessAfterWarmUp = [];
    this.fired = this.duplicates = this.unknown = 0;
    this.firstFireAt = this.lastFireAt = null;
    this.cpuAtArm = process.cpuUsage();
    this.callsAtArm = this.callsSoFar();
  }

  /** A handler started for `id`. */
  record(id: string, reportedDueAt: number | null): void {
    const now = this.now();
    this.fired++;
    this.firstFireAt ??= now;
    this.lastFireAt = now;
    const plan = this.plan;
    const index = plan && id.startsWith(plan.idPrefix) ? Number(id.slice(plan.idPrefix.length)) : Number.NaN;
    if (!plan || !Number.isInteger(index) || index < 0 || index >= plan.count) {
      this.unknown++;
      return;
    }
    if (this.seen[index]) {
      this.duplicates++;
      return;
    }
    this.seen[index] = 1;
    const due = dueAt(plan, index);
    const lateness = now - (reportedDueAt ?? due);
    this.lateness.push(lateness);
    if (due - plan.startAt >= WARM_UP_MS) this.latenessAfterWarmUp.push(lateness);
  }

  /** Distinct ids of the plan fired so far. */
  get distinct(): number {
    return this.lateness.length;
  }

  /** Whether every id of the plan has fired. */
  get complete(): boolean {
    return this.plan !== undefined && this.lateness.length >= this.plan.count;
  }

  /** The figures so far. */
  result(): FireResult {
    const cpu = process.cpuUsage(this.cpuAtArm);
    return {
      lateness: this.lateness,
      latenessAfterWarmUp: this.latenessAfterWarmUp,
      fired: this.fired,
      duplicates: this.duplicates,
      unknown: this.unknown,
      firstFireAt: this.firstFireAt,
      lastFireAt: this.lastFireAt,
      cpuUs: cpu.user + cpu.system,
      redisCalls: this.callsSoFar() - this.callsAtArm,
    };
  }
}
