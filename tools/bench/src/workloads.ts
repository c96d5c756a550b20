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
  /** What the ids of this plan start with (`t` measured, `w` warm-up): a warm-up's ids never meet a measured run's. */
  idPrefix: string;
  /** Ids shaped as 36-character UUIDs (`uuidId`) instead of `idPrefix` and the index: the pending phase's second measurement of memory. */
  uuidIds?: boolean;
}

/** Payload of every timeout: a JSON string of exactly 20 bytes, the size the memory figure is quoted for. */
export const PAYLOAD = 'bench-payload-20-b';

/** Bytes of `PAYLOAD` as JSON text. */
export const PAYLOAD_JSON_BYTES = JSON.stringify(PAYLOAD).length;

/** Name of the lowest steady rate, reported beside the targeted ones. */
export const LOW_RATE_WORKLOAD = 'steady 200/s';

/** Name of the workload the Nest module runs (its overhead shows at one rate). */
export const NEST_WORKLOAD = 'steady 2k/s';

/**
 * The four workloads. Full: 200/s, 2,000/s and 10,000/s over 10 s, and 50,000 due at once. Quick
 * keeps the rates but shortens the window to 1 s and the burst to 10,000, so the whole run fits in a minute.
 */
export function standardWorkloads(quick: boolean): Workload[] {
  const windowMs = quick ? 1_000 : 10_000;
  const burst = quick ? 10_000 : 50_000;
  return [
    { name: LOW_RATE_WORKLOAD, kind: 'steady', count: (200 * windowMs) / 1000, windowMs },
    { name: 'steady 2k/s', kind: 'steady', count: (2_000 * windowMs) / 1000, windowMs },
    { name: 'steady 10k/s', kind: 'steady', count: (10_000 * windowMs) / 1000, windowMs },
    { name: `burst ${burst / 1000}k`, kind: 'burst', count: burst, windowMs: 0 },
  ];
}

/**
 * The unmeasured round a worker runs before its measured one, so that the measured figures do not
 * pay for a cold process (module loading, V8 compiling the firing path): the same kind and rate,
 * over 2 s (0.25 s with `--quick`), or a burst of 10,000 (1,000 with `--quick`), at most the workload itself.
 */
export function warmUpOf(workload: Workload, quick: boolean): Workload {
  if (workload.kind === 'burst') return { ...workload, name: `warm-up of ${workload.name}`, count: Math.min(workload.count, quick ? 1_000 : 10_000) };
  const windowMs = Math.min(workload.windowMs, quick ? 250 : 2_000);
  return { ...workload, name: `warm-up of ${workload.name}`, windowMs, count: Math.max(1, Math.round((workload.count * windowMs) / workload.windowMs)) };
}

/** The plan of a workload whose first timeout is due at `startAt`; ids `t0`, `t1`, ... unless `idPrefix` says otherwise. */
export function planOf(workload: Workload, startAt: number, idPrefix = 't'): DuePlan {
  return { kind: workload.kind, count: workload.count, windowMs: workload.windowMs, startAt, idPrefix };
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

/** A 36-character id in the form of a version-4 UUID, unique per `index` (its last 12 hex digits), the same in every system. */
export function uuidId(index: number): string {
  // The first eight hex digits vary with the index, so that the ids do not share a long common beginning.
  const scattered = (Math.imul(index, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
  return `${scattered}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** Id of timeout `index` of a plan: `timeoutId` for a measured plan, its own prefix for a warm-up, `uuidId` for a plan of UUID ids. */
export function idOf(plan: DuePlan, index: number): string {
  return plan.uuidIds ? uuidId(index) : `${plan.idPrefix}${index}`;
}
