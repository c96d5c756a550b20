/** `steady`: due times spread evenly over a window; `burst`: every timeout due at the same instant. */
export type WorkloadKind = 'steady' | 'burst';

/** One workload of the benchmark. */
export interface Workload {
  /** Label used in the table and the JSON (`steady 2k/s`, `burst 50k`). */
  name: string;
  kind: WorkloadKind;
  /** Number of timeouts. */
  count: number;
  /** Span of the due times (0 for a burst). */
  windowMs: number;
}

/** The due times of one run: timeout `i` is due at `dueAt(plan, i)`. Sent as is to worker processes. */
export interface DuePlan {
  kind: WorkloadKind;
  count: number;
  windowMs: number;
  /** Due time of the first timeout, ms since the epoch (machine clock; Redis runs on the same machine). */
  startAt: number;
}

/** Payload of every timeout: a JSON string of exactly 20 bytes, the size the memory figure is quoted for. */
export const PAYLOAD = 'bench-payload-20-b';

/** Bytes of `PAYLOAD` as JSON text. */
export const PAYLOAD_JSON_BYTES = JSON.stringify(PAYLOAD).length;

/**
 * The three workloads. Full: 2,000/s and 10,000/s over 10 s, and 50,000 due at once. Quick keeps
 * the rates but shortens the window to 1 s and the burst to 10,000, so the whole run fits in a minute.
 */
export function standardWorkloads(quick: boolean): Workload[] {
  const windowMs = quick ? 1_000 : 10_000;
  const burst = quick ? 10_000 : 50_000;
  return [
    { name: 'steady 2k/s', kind: 'steady', count: (2_000 * windowMs) / 1000, windowMs },
    { name: 'steady 10k/s', kind: 'steady', count: (10_000 * windowMs) / 1000, windowMs },
    { name: `burst ${burst / 1000}k`, kind: 'burst', count: burst, windowMs: 0 },
  ];
}

/** The plan of a workload whose first timeout is due at `startAt`. */
export function planOf(workload: Workload, startAt: number): DuePlan {
  return { kind: workload.kind, count: workload.count, windowMs: workload.windowMs, startAt };
}

/** Due time of timeout `index` (0-based) of a plan, whole milliseconds. */
export function dueAt(plan: DuePlan, index: number): number {
  if (plan.kind === 'burst' || plan.count <= 1) return plan.startAt;
  return plan.startAt + Math.floor((index * plan.windowMs) / plan.count);
}

/** Due time of the last timeout of a plan. */
export function lastDueAt(plan: DuePlan): number {
  return dueAt(plan, plan.count - 1);
}

/** Id of timeout `index`: short, unique in a run, and the same in every system. */
export function timeoutId(index: number): string {
  return `t${index}`;
}
