// Measures what firing costs this process (CPU per fired timeout) and Redis (server CPU per fired
// timeout), and how fast a burst drains, against a throwaway Redis server. Used to decide changes
// to the store's per-call cost; figures are recorded in docs/REDIS-LAYOUT.md ("Per-call cost").
//
//   npm run build -w packages/core
//   node packages/core/perf/fire-cost.mjs [--dist <built core dir>] [--runs 3] [--cluster]
//
// Steady: 20,000 timeouts due evenly over 10 s (2,000/s), one worker engine with 16 slots.
// Burst: 50,000 timeouts already due when the worker starts; time until the last one fired.
// Empty claims: 20,000 claims of empty slots, 1 and 16 in flight: the bare per-call cost.
// Each scenario runs `--runs` times on a fresh key prefix; the median is printed.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { RedisCluster, RedisServer } from '@durable-timeout/redis-testing';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: new URL('../dist/esm', import.meta.url).pathname },
    runs: { type: 'string', default: '3' },
    cluster: { type: 'boolean', default: false },
    steady: { type: 'string', default: '20000' },
    burst: { type: 'string', default: '50000' },
  },
});
// Typed as the package's published entry, so that `tsc -p scripts/checked` checks the calls below.
/** @type {typeof import('@durable-timeout/core')} */
const core = await import(pathToFileURL(resolve(values.dist, 'index.js')).href);
const { DurableTimeouts, RedisTimeoutStore } = core;
const runs = Number(values.runs);
const SLOTS = 16;
const STEADY = Number(values.steady);
const STEADY_WINDOW_MS = 10_000;
const BURST = Number(values.burst);

let prefixCounter = 0;

/** Redis server CPU seconds (user + sys) summed over the given nodes. */
async function serverCpu(clients) {
  let total = 0;
  for (const client of clients) {
    const info = await client.info('cpu');
    total += Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
  }
  return total;
}

function engine(target, extra = {}) {
  return new DurableTimeouts({
    connection: target.connection,
    prefix: target.prefix,
    topics: { payment: { slots: SLOTS, leaseMs: 30_000 } },
    logger: null,
    ...extra,
  });
}

/** Schedules `count` timeouts with `at` from `atOf(i)`, 2,000 calls in flight at most. */
async function scheduleAll(scheduler, count, atOf) {
  for (let start = 0; start < count; start += 2_000) {
    const calls = [];
    for (let i = start; i < Math.min(count, start + 2_000); i++) {
      calls.push(scheduler.schedule('payment', `order-${i}`, { at: atOf(i), payload: { orderId: i, amount: 4200 } }));
    }
    await Promise.all(calls);
  }
}

function firedCounter(timeouts, count) {
  let fired = 0;
  let resolveDone;
  const done = new Promise((resolvePromise) => (resolveDone = resolvePromise));
  timeouts.on('fired', () => {
    fired++;
    if (fired === count) resolveDone();
  });
  return done;
}

async function steadyRun(target) {
  const scheduler = engine(target);
  const worker = engine(target);
  worker.handle('payment', () => undefined);
  const now = Date.now();
  const windowStart = now + 4_000;
  await scheduleAll(scheduler, STEADY, (i) => windowStart + Math.floor((i * STEADY_WINDOW_MS) / STEADY));
  const done = firedCounter(worker, STEADY);
  await worker.start();
  await new Promise((r) => setTimeout(r, Math.max(0, windowStart - Date.now() - 50)));
  const cpuBefore = process.cpuUsage();
  const serverBefore = await serverCpu(target.admins);
  await done;
  const cpu = process.cpuUsage(cpuBefore);
  const server = (await serverCpu(target.admins)) - serverBefore;
  await worker.stop({ drainMs: 1_000 });
  await scheduler.stop({ drainMs: 0 });
  return { clientUsPerFired: (cpu.user + cpu.system) / STEADY, serverUsPerFired: (server * 1e6) / STEADY };
}

async function burstRun(target) {
  const scheduler = engine(target);
  const worker = engine(target);
  worker.handle('payment', () => undefined);
  const past = Date.now() - 1_000;
  await scheduleAll(scheduler, BURST, () => past);
  const done = firedCounter(worker, BURST);
  const cpuBefore = process.cpuUsage();
  const serverBefore = await serverCpu(target.admins);
  const started = performance.now();
  await worker.start();
  await done;
  const drainMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const server = (await serverCpu(target.admins)) - serverBefore;
  await worker.stop({ drainMs: 1_000 });
  await scheduler.stop({ drainMs: 0 });
  return { drainMs, clientUsPerFired: (cpu.user + cpu.system) / BURST, serverUsPerFired: (server * 1e6) / BURST };
}

/** 20,000 claims of empty slots, `inFlight` at a time (one slot each): CPU per call, no firing. */
async function emptyClaims(target, inFlight) {
  const store = new RedisTimeoutStore({ connection: target.connection, prefix: target.prefix });
  const slots = Array.from({ length: inFlight }, (_, slot) => ({ topic: 'payment', slot }));
  await Promise.all(slots.map((slot) => store.deliveries.claim(slot, 100, 30_000)));
  const calls = 20_000;
  const cpuBefore = process.cpuUsage();
  const serverBefore = await serverCpu(target.admins);
  for (let done = 0; done < calls; done += inFlight) await Promise.all(slots.map((slot) => store.deliveries.claim(slot, 100, 30_000)));
  const cpu = process.cpuUsage(cpuBefore);
  const server = (await serverCpu(target.admins)) - serverBefore;
  await store.close();
  return { clientUsPerCall: (cpu.user + cpu.system) / calls, serverUsPerCall: (server * 1e6) / calls };
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const fmt = (n) => n.toFixed(0);

let stopRedis;
let connection;
let admins;
if (values.cluster) {
  const cluster = await RedisCluster.start();
  stopRedis = () => cluster.stop();
  connection = { cluster: cluster.startupNodes };
  admins = cluster.nodes.map((node) => node.client());
} else {
  const server = await RedisServer.start();
  stopRedis = () => server.stop();
  connection = server.url;
  admins = [server.client()];
}
try {
  const steady = [];
  const burst = [];
  const idle = { 1: [], 16: [] };
  for (let run = 0; run < runs; run++) {
    for (const inFlight of [1, 16]) idle[inFlight].push(await emptyClaims({ connection, admins, prefix: `perf${++prefixCounter}` }, inFlight));
    steady.push(await steadyRun({ connection, admins, prefix: `perf${++prefixCounter}` }));
    burst.push(await burstRun({ connection, admins, prefix: `perf${++prefixCounter}` }));
    const s = steady.at(-1);
    const b = burst.at(-1);
    console.log(
      `run ${run + 1}: steady client ${fmt(s.clientUsPerFired)} us/fired, redis ${fmt(s.serverUsPerFired)} us/fired; ` +
        `burst ${fmt(b.drainMs)} ms, client ${fmt(b.clientUsPerFired)} us/fired, redis ${fmt(b.serverUsPerFired)} us/fired`,
    );
  }
  for (const inFlight of [1, 16]) {
    console.log(
      `median, claims of an empty slot, ${inFlight} in flight: client ${fmt(median(idle[inFlight].map((r) => r.clientUsPerCall)))} us CPU/call, ` +
        `redis ${fmt(median(idle[inFlight].map((r) => r.serverUsPerCall)))} us CPU/call`,
    );
  }
  console.log(
    `median (${values.cluster ? 'cluster' : 'one server'}, ${values.dist}): ` +
      `steady ${STEADY} over ${STEADY_WINDOW_MS / 1000} s: client ${fmt(median(steady.map((s) => s.clientUsPerFired)))} us CPU/fired, ` +
      `redis ${fmt(median(steady.map((s) => s.serverUsPerFired)))} us CPU/fired | ` +
      `burst ${BURST}: drained in ${fmt(median(burst.map((b) => b.drainMs)))} ms, ` +
      `client ${fmt(median(burst.map((b) => b.clientUsPerFired)))} us CPU/fired, redis ${fmt(median(burst.map((b) => b.serverUsPerFired)))} us CPU/fired`,
  );
} finally {
  await stopRedis();
}
