// `npm run bench -- --only redis-cpu`: what one scheduled, fired and cancelled timeout costs Redis
// in CPU, and how many fires a second a cluster master serves per core. See docs/SCALING.md.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { HarnessError, RedisCluster, RedisServer } from '@durable-timeout/redis-testing';
import { clusterSpread } from './cluster-spread.js';
import type { CpuPhase, CpuPhaseKind, FromCpuClient, ToCpuClient } from './redis-cpu-client.js';
import {
  masterFigure,
  phaseFigure,
  serverSnapshot,
  snapshotDelta,
  snapshotSum,
  type ClientCost,
  type ClusterFireFigure,
  type PhaseFigure,
  type RedisCpuReport,
  type ServerSnapshot,
} from './redis-cpu-figures.js';
import type { RedisTarget } from './systems/system.js';

const CLIENT_SCRIPT = fileURLToPath(new URL('./redis-cpu-client.js', import.meta.url));

/** The measured topic. */
const TOPIC = 'cpu';

/** Slots of the topic on one server (the engine's default). */
const SINGLE_SLOTS = 16;

/** Slots of the topic on the cluster (a power of two, as the engine requires): about 21 per master. */
const CLUSTER_SLOTS = 64;

/** Client processes firing on the cluster (more would only share the same two cores). */
const CLUSTER_FIRING_CLIENTS = 2;

/** How long a client may take over one step before the measurement gives up. */
const STEP_TIMEOUT_MS = 300_000;

/** A forked client process running one phase. */
class CpuClient {
  private readonly messages: FromCpuClient[] = [];
  private readonly waiting = new Set<() => void>();
  private exited: string | undefined;
  fired = 0;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: FromCpuClient) => {
      if (message.type === 'progress') this.fired += message.fired;
      else this.messages.push(message);
      for (const wake of this.waiting) wake();
    });
    child.once('exit', (code, signal) => {
      this.exited = `exited with ${code ?? signal}`;
      for (const wake of this.waiting) wake();
    });
  }

  static async prepare(phase: CpuPhase): Promise<CpuClient> {
    const client = new CpuClient(fork(CLIENT_SCRIPT, [], { stdio: 'inherit' }));
    client.send({ type: 'prepare', phase });
    await client.next('prepared');
    return client;
  }

  send(message: ToCpuClient): void {
    this.child.send(message);
  }

  /** Resolves once `check` holds, re-checked on every message; rejects when the client fails, exits or stalls. */
  async until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while (!check()) {
      const failed = this.messages.find((m) => m.type === 'failed');
      if (failed && failed.type === 'failed') throw new HarnessError('process', `a redis-cpu client failed: ${failed.message}`);
      if (this.exited) throw new HarnessError('process', `a redis-cpu client ${this.exited} while waiting for ${what}`);
      if (Date.now() > deadline) throw new HarnessError('process', `a redis-cpu client sent no ${what} within ${STEP_TIMEOUT_MS / 1000} s`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.waiting.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 50);
        this.waiting.add(wake);
      });
    }
  }

  async next<T extends FromCpuClient['type']>(type: T): Promise<Extract<FromCpuClient, { type: T }>> {
    await this.until(() => this.messages.some((m) => m.type === type), type);
    const index = this.messages.findIndex((m) => m.type === type);
    return this.messages.splice(index, 1)[0] as Extract<FromCpuClient, { type: T }>;
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

async function snapshotOf(node: Redis): Promise<ServerSnapshot> {
  const [cpu, commandstats, stats] = await Promise.all([node.info('cpu'), node.info('commandstats'), node.info('stats')]);
  return serverSnapshot(cpu, commandstats, stats);
}

/**
 * Runs phases of one kind in `clients` processes at once and returns what each node spent over
 * them (from the first `go` to the last `done`) and the clients' summed cost. Firing phases end
 * once `expectFires` handlers ran.
 */
async function runPhase(nodes: readonly Redis[], phases: readonly CpuPhase[], expectFires = 0): Promise<{ spent: ServerSnapshot[]; client: ClientCost; fired: number }> {
  const clients: CpuClient[] = [];
  try {
    for (const phase of phases) clients.push(await CpuClient.prepare(phase));
    const before = await Promise.all(nodes.map(snapshotOf));
    for (const client of clients) client.send({ type: 'go' });
    if (expectFires > 0) {
      const total = (): number => clients.reduce((sum, c) => sum + c.fired, 0);
      await Promise.all(clients.map((c) => c.until(() => total() >= expectFires, `${expectFires} fires`)));
      for (const client of clients) client.send({ type: 'finish' });
    }
    const done = await Promise.all(clients.map((c) => c.next('done')));
    const after = await Promise.all(nodes.map(snapshotOf));
    return {
      spent: nodes.map((_, i) => snapshotDelta(before[i]!, after[i]!)),
      client: {
        userUs: done.reduce((sum, d) => sum + d.userUs, 0),
        systemUs: done.reduce((sum, d) => sum + d.systemUs, 0),
        // A firing phase lasts from its first handler start to its last (the harness's `finish` comes later).
        elapsedMs: expectFires > 0 ? firingSpan(done) : Math.max(...done.map((d) => d.elapsedMs)),
      },
      fired: clients.reduce((sum, c) => sum + c.fired, 0),
    };
  } finally {
    for (const client of clients) client.kill();
  }
}

/** One phase on one server. */
interface PhaseSpec {
  name: string;
  kind: CpuPhaseKind;
  count: number;
  width: number;
  slots: number;
  /** `fire`: 0 when every timeout is due before the engine starts, else the window their due times spread over. */
  dueOverMs: number;
}

/** Time to store `count` timeouts before the first is due, at a pessimistic 10,000 a second, plus 2 s to start firing. */
const leadFor = (count: number): number => 2_000 + count / 10;

/** From the first handler start to the last, over every client that fired (epoch ms: comparable across processes). */
function firingSpan(done: readonly { firstFireAt: number; lastFireAt: number }[]): number {
  const fired = done.filter((d) => d.firstFireAt > 0);
  return Math.max(...fired.map((d) => d.lastFireAt)) - Math.min(...fired.map((d) => d.firstFireAt));
}

/** The phases on one server: each kind of operation, single calls and batched; firing a backlog and at a steady rate. */
function singlePhases(quick: boolean): PhaseSpec[] {
  const many = quick ? 10_000 : 50_000;
  const one = quick ? 2_000 : 10_000;
  const steadyMs = quick ? 2_000 : 10_000;
  const base = { slots: SINGLE_SLOTS, dueOverMs: 0 };
  return [
    { ...base, name: 'schedule, 1 call in flight', kind: 'schedule', count: one, width: 1 },
    { ...base, name: 'schedule, 64 in flight over 1,024 slots', kind: 'schedule', count: many, width: 64, slots: 1_024 },
    { ...base, name: 'schedule, 1,000 calls in flight', kind: 'schedule', count: many, width: 1_000 },
    { ...base, name: 'scheduleMany, 100 per call', kind: 'scheduleMany', count: many, width: 100 },
    { ...base, name: 'cancel, 1 call in flight', kind: 'cancel', count: one, width: 1 },
    { ...base, name: 'cancel, 1,000 calls in flight', kind: 'cancel', count: many, width: 1_000 },
    { ...base, name: 'cancelMany, 100 per call', kind: 'cancelMany', count: many, width: 100 },
    { ...base, name: 'fire a backlog (all due; claim + handler + ack)', kind: 'fire', count: many, width: 0 },
    { name: 'fire at 5,000/s over 64 slots (steady)', kind: 'fire', count: (5_000 * steadyMs) / 1000, width: 0, slots: 64, dueOverMs: steadyMs },
  ];
}

/** Stores `count` timeouts, due now or spread over `dueOverMs`, through one client process (not measured). */
async function storeDue(target: RedisTarget, prefix: string, slots: number, count: number, dueOverMs = 0): Promise<void> {
  const client = await CpuClient.prepare({ kind: 'store-due', target, prefix, topic: TOPIC, slots, count, width: 0, dueOverMs, leadMs: leadFor(count) });
  try {
    client.send({ type: 'go' });
    await client.next('done');
  } finally {
    client.kill();
  }
}

async function measureSingle(quick: boolean, log: (line: string) => void): Promise<PhaseFigure[]> {
  const server = await RedisServer.start();
  const figures: PhaseFigure[] = [];
  try {
    const admin = server.client();
    const target: RedisTarget = { kind: 'single', host: server.host, port: server.port };
    for (const [index, spec] of singlePhases(quick).entries()) {
      const prefix = `cpu${index}`;
      const phase: CpuPhase = { kind: spec.kind, target, prefix, topic: TOPIC, slots: spec.slots, count: spec.kind === 'fire' ? 0 : spec.count, width: spec.width, dueOverMs: 0, leadMs: 0 };
      if (spec.kind === 'fire') await storeDue(target, prefix, spec.slots, spec.count, spec.dueOverMs);
      const { spent, client, fired } = await runPhase([admin], [phase], spec.kind === 'fire' ? spec.count : 0);
      const figure = phaseFigure(spec.name, spec.kind === 'fire' ? fired : spec.count, spent[0]!, client);
      figures.push(figure);
      log(`  ${spec.name}: ${figure.serverCpuUs.toFixed(1)} µs Redis CPU (${figure.scriptUs.toFixed(1)} in scripts), ${figure.clientCpuUs.toFixed(1)} µs client CPU per op (${Math.round(figure.opsPerSec)}/s reached)`);
      await admin.flushall();
    }
    return figures;
  } finally {
    await server.stop();
  }
}

/** One cluster fire phase: `count` timeouts over `slots` slots, due at once (`dueOverMs` 0) or spread over `dueOverMs`. */
async function clusterFire(
  cluster: RedisCluster,
  nodes: readonly Redis[],
  spec: { name: string; prefix: string; slots: number; count: number; dueOverMs: number },
  log: (line: string) => void,
): Promise<ClusterFireFigure> {
  const target: RedisTarget = { kind: 'cluster', nodes: cluster.startupNodes };
  await storeDue(target, spec.prefix, spec.slots, spec.count, spec.dueOverMs);
  const spread = await clusterSpread(nodes, spec.prefix, TOPIC, spec.slots);
  log(`  ${spec.name}: ${spec.count} timeouts, ${spread.map((s) => `${s.node} ${s.slots} slots, ${s.timeouts}`).join('; ')}`);
  const phase: CpuPhase = { kind: 'fire', target, prefix: spec.prefix, topic: TOPIC, slots: spec.slots, count: 0, width: 0, dueOverMs: 0, leadMs: 0 };
  const { spent, client, fired } = await runPhase(nodes, Array.from({ length: CLUSTER_FIRING_CLIENTS }, () => phase), spec.count);
  const left = await clusterSpread(nodes, spec.prefix, TOPIC, spec.slots);
  if (left.some((s) => s.timeouts > 0)) throw new HarnessError('environment', `timeouts left pending after the cluster fire phase: ${left.map((s) => s.timeouts).join(', ')}`);
  const masters = spread.map((s, i) => masterFigure(s.node, s.timeouts, spent[i]!));
  log(`  ${fired} fired in ${(client.elapsedMs / 1000).toFixed(2)} s by ${CLUSTER_FIRING_CLIENTS} processes; masters' CPU ${snapshotSum(spent).cpuSeconds.toFixed(2)} s`);
  return { name: spec.name, masters, clients: CLUSTER_FIRING_CLIENTS, fires: fired, firesPerSec: (fired * 1000) / client.elapsedMs, clientCpuUsPerFire: (client.userUs + client.systemUs) / fired };
}

/** A backlog due at once over 64 slots, then a steady rate over 256 slots (fewer fires per claim). */
async function measureCluster(quick: boolean, log: (line: string) => void): Promise<ClusterFireFigure[]> {
  const cluster = await RedisCluster.start({ masters: 3 });
  try {
    const nodes = cluster.nodes.map((node) => node.client());
    const steadyMs = quick ? 2_000 : 10_000;
    return [
      await clusterFire(cluster, nodes, { name: `backlog of ${quick ? '15,000' : '90,000'} due at once, ${CLUSTER_SLOTS} slots`, prefix: 'cpuc1', slots: CLUSTER_SLOTS, count: quick ? 15_000 : 90_000, dueOverMs: 0 }, log),
      await clusterFire(cluster, nodes, { name: 'steady 6,000/s, 256 slots', prefix: 'cpuc2', slots: 256, count: (6_000 * steadyMs) / 1000, dueOverMs: steadyMs }, log),
    ];
  } finally {
    await cluster.stop();
  }
}

/** One server, then a 3-master cluster. */
export async function measureRedisCpu(quick: boolean, log: (line: string) => void): Promise<RedisCpuReport> {
  log('redis-cpu: one server, one client process per phase, 36-character UUID ids, 200-byte payloads');
  const single = await measureSingle(quick, log);
  log('redis-cpu: fires on a local cluster of 3 masters');
  const cluster = await measureCluster(quick, log);
  return { single, cluster };
}
