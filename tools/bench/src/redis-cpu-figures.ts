import { commandCalls, commandUsec, networkBytes, usedCpuSeconds } from './redis-info.js';
import { formatNumber, renderTable, type Column } from './table.js';

/** The commands that run the store's Lua scripts. */
const SCRIPT_COMMANDS = ['evalsha', 'eval'];

/** What one Redis node had spent at an instant: from `INFO cpu` and `INFO commandstats`. */
export interface ServerSnapshot {
  /** used_cpu_user + used_cpu_sys, seconds. */
  cpuSeconds: number;
  /** Microseconds Redis counted inside script calls (`evalsha` + `eval`), nested commands included. */
  scriptUsec: number;
  /** Script calls (`evalsha` + `eval`) so far. */
  scriptCalls: number;
  /** Bytes read from clients (`total_net_input_bytes`). */
  netInBytes: number;
  /** Bytes written to clients (`total_net_output_bytes`). */
  netOutBytes: number;
}

/** CPU the client process spent over a phase (`process.cpuUsage()` delta) and how long the phase took. */
export interface ClientCost {
  userUs: number;
  systemUs: number;
  elapsedMs: number;
}

/** The cost of one kind of operation, per operation. */
export interface PhaseFigure {
  /** `schedule, 1 in flight`, `fire (engine)`, ... */
  name: string;
  /** Operations done in the phase (timeouts scheduled, fired or cancelled). */
  ops: number;
  /** Redis CPU (user + sys) per operation, microseconds. */
  serverCpuUs: number;
  /** Time Redis spent inside scripts per operation, microseconds (part of `serverCpuUs`). */
  scriptUs: number;
  /** Script calls per operation (1 when nothing is batched, 0.005 for 200 per call). */
  scriptCallsPerOp: number;
  /** Bytes Redis read from and wrote to its clients per operation. */
  netInBytes: number;
  netOutBytes: number;
  /** Client process CPU per operation, microseconds. */
  clientCpuUs: number;
  /** Operations per second the phase reached on this machine. */
  opsPerSec: number;
  /** Operations one fully busy Redis core would do at `serverCpuUs` each: derived, not measured. */
  opsPerRedisCore: number;
}

/** Bytes of each payload's JSON text: the size the memory figure of docs/SCALING.md is quoted for too. */
export const CPU_PAYLOAD_BYTES = 200;

/** A JSON payload of exactly `CPU_PAYLOAD_BYTES` bytes, different per timeout (up to 10^18). */
export function payloadOf(index: number): { orderId: string; customer: string; note: string } {
  const base = { orderId: `o-${index}`, customer: 'c-0000000000001', note: '' };
  return { ...base, note: 'x'.repeat(CPU_PAYLOAD_BYTES - JSON.stringify(base).length) };
}

/** A snapshot from the `INFO cpu`, `INFO commandstats` and `INFO stats` replies of one node. */
export function serverSnapshot(cpuInfo: string, commandstatsInfo: string, statsInfo: string): ServerSnapshot {
  const calls = commandCalls(commandstatsInfo);
  const usec = commandUsec(commandstatsInfo);
  const sum = (values: Map<string, number>): number => SCRIPT_COMMANDS.reduce((total, command) => total + (values.get(command) ?? 0), 0);
  const net = networkBytes(statsInfo);
  return { cpuSeconds: usedCpuSeconds(cpuInfo), scriptUsec: sum(usec), scriptCalls: sum(calls), netInBytes: net.input, netOutBytes: net.output };
}

/** The difference of two snapshots of one node. */
export function snapshotDelta(before: ServerSnapshot, after: ServerSnapshot): ServerSnapshot {
  return {
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    scriptUsec: after.scriptUsec - before.scriptUsec,
    scriptCalls: after.scriptCalls - before.scriptCalls,
    netInBytes: after.netInBytes - before.netInBytes,
    netOutBytes: after.netOutBytes - before.netOutBytes,
  };
}

/** Sum of several snapshots (the masters of a cluster). */
export function snapshotSum(snapshots: readonly ServerSnapshot[]): ServerSnapshot {
  const zero: ServerSnapshot = { cpuSeconds: 0, scriptUsec: 0, scriptCalls: 0, netInBytes: 0, netOutBytes: 0 };
  return snapshots.reduce(
    (sum, s) => ({
      cpuSeconds: sum.cpuSeconds + s.cpuSeconds,
      scriptUsec: sum.scriptUsec + s.scriptUsec,
      scriptCalls: sum.scriptCalls + s.scriptCalls,
      netInBytes: sum.netInBytes + s.netInBytes,
      netOutBytes: sum.netOutBytes + s.netOutBytes,
    }),
    zero,
  );
}

/** Per-operation figures of a phase of `ops` operations, from the server's spend over it and the client's. */
export function phaseFigure(name: string, ops: number, spent: ServerSnapshot, client: ClientCost): PhaseFigure {
  if (!(ops > 0)) throw new RangeError(`phase "${name}" did no operation: nothing to divide by`);
  const serverCpuUs = (spent.cpuSeconds * 1e6) / ops;
  return {
    name,
    ops,
    serverCpuUs,
    scriptUs: spent.scriptUsec / ops,
    scriptCallsPerOp: spent.scriptCalls / ops,
    netInBytes: spent.netInBytes / ops,
    netOutBytes: spent.netOutBytes / ops,
    clientCpuUs: (client.userUs + client.systemUs) / ops,
    opsPerSec: client.elapsedMs > 0 ? (ops * 1000) / client.elapsedMs : Number.NaN,
    opsPerRedisCore: serverCpuUs > 0 ? 1e6 / serverCpuUs : Number.NaN,
  };
}

/** One cluster master over the cluster fire phase. */
export interface MasterFigure {
  /** `master 1`, ... */
  node: string;
  /** Timeouts of its slots that fired (its share of the pending ones before the phase). */
  fires: number;
  /** Its CPU seconds over the phase. */
  cpuSeconds: number;
  /** CPU per fire, microseconds. */
  cpuUsPerFire: number;
  /** Bytes in + out per fire between the master and its clients. */
  netBytesPerFire: number;
  /** Fires a second this master would serve at one full core: derived, 1e6 / cpuUsPerFire. */
  firesPerCore: number;
}

/** Per-master figures of the cluster fire phase. */
export function masterFigure(node: string, fires: number, spent: ServerSnapshot): MasterFigure {
  const cpuUsPerFire = fires > 0 ? (spent.cpuSeconds * 1e6) / fires : Number.NaN;
  return {
    node,
    fires,
    cpuSeconds: spent.cpuSeconds,
    cpuUsPerFire,
    netBytesPerFire: fires > 0 ? (spent.netInBytes + spent.netOutBytes) / fires : Number.NaN,
    firesPerCore: cpuUsPerFire > 0 ? 1e6 / cpuUsPerFire : Number.NaN,
  };
}

const PHASE_COLUMNS: Column[] = [
  { header: 'operation' },
  { header: 'ops', align: 'right' },
  { header: 'Redis CPU µs/op', align: 'right' },
  { header: 'in scripts µs/op', align: 'right' },
  { header: 'script calls/op', align: 'right' },
  { header: 'net in B/op', align: 'right' },
  { header: 'net out B/op', align: 'right' },
  { header: 'client CPU µs/op', align: 'right' },
  { header: 'ops/s reached', align: 'right' },
  { header: 'ops/s per Redis core (derived)', align: 'right' },
];

/** Rows of the per-operation table. */
export function phaseRows(figures: readonly PhaseFigure[]): string[][] {
  return figures.map((f) => [
    f.name,
    formatNumber(f.ops),
    formatNumber(f.serverCpuUs, 1),
    formatNumber(f.scriptUs, 1),
    formatNumber(f.scriptCallsPerOp, 3),
    formatNumber(f.netInBytes),
    formatNumber(f.netOutBytes),
    formatNumber(f.clientCpuUs, 1),
    formatNumber(f.opsPerSec),
    formatNumber(f.opsPerRedisCore),
  ]);
}

const MASTER_COLUMNS: Column[] = [
  { header: 'master' },
  { header: 'fires', align: 'right' },
  { header: 'CPU s', align: 'right' },
  { header: 'CPU µs/fire', align: 'right' },
  { header: 'net B/fire', align: 'right' },
  { header: 'fires/s at one core (derived)', align: 'right' },
];

/** Rows of the per-master table. */
export function masterRows(masters: readonly MasterFigure[]): string[][] {
  return masters.map((m) => [m.node, formatNumber(m.fires), formatNumber(m.cpuSeconds, 2), formatNumber(m.cpuUsPerFire, 1), formatNumber(m.netBytesPerFire), formatNumber(m.firesPerCore)]);
}

/** The per-operation table, as text (`renderTable`) or Markdown (`renderMarkdownTable`). */
export function renderPhases(figures: readonly PhaseFigure[], render = renderTable): string {
  return render(PHASE_COLUMNS, phaseRows(figures));
}

/** The per-master table, as text or Markdown. */
export function renderMasters(masters: readonly MasterFigure[], render = renderTable): string {
  return render(MASTER_COLUMNS, masterRows(masters));
}

/** The cluster fire phase: per master, and the whole. */
export interface ClusterFireFigure {
  /** `backlog of 90,000 due at once, 64 slots`, ... */
  name: string;
  masters: MasterFigure[];
  /** Client processes that fired. */
  clients: number;
  fires: number;
  /** Fires a second this machine reached, first handler start to last (Redis and clients sharing its cores; a steady phase is paced by its due times). */
  firesPerSec: number;
  /** CPU of the firing processes per fire, microseconds. */
  clientCpuUsPerFire: number;
}

/** Everything the Redis CPU measurement found. */
export interface RedisCpuReport {
  /** Per-operation cost on one server. */
  single: PhaseFigure[];
  /** Cluster fire phases. */
  cluster: ClusterFireFigure[];
}

/** Both tables and the cluster's totals, as text (`renderTable`) or Markdown (`renderMarkdownTable`). */
export function renderRedisCpu(report: RedisCpuReport, render = renderTable): string {
  const parts = ['Redis CPU per operation, one server (INFO cpu over each phase / operations):', '', renderPhases(report.single, render)];
  for (const c of report.cluster) {
    parts.push(
      '',
      `Fires on a local cluster of ${c.masters.length} masters, ${c.name}, ${c.clients} firing processes: ${formatNumber(c.fires)} fires at ${formatNumber(c.firesPerSec)}/s ` +
        `reached on this machine (measured); client CPU ${formatNumber(c.clientCpuUsPerFire, 1)} µs per fire.`,
      '',
      renderMasters(c.masters, render),
    );
  }
  return parts.join('\n');
}
