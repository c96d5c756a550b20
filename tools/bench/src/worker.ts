// A worker process of the benchmark: runs the firing side of one system and reports every handler
// start to the parent. Forked by main.ts with the advanced IPC serialisation.
import { CpuProfiler } from './cpu-profiler.js';
import { FireRecorder } from './fire-recorder.js';
import { redisCallsSent } from './redis-calls.js';
import { SoakRecorder } from './soak-recorder.js';
import { loadSystem } from './systems/index.js';
import type { Worker } from './systems/system.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';
import { benchMessages } from './bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

const PROGRESS_EVERY_MS = 1_000;

const recorder = new FireRecorder(Date.now, redisCallsSent);
// Counts from here on, before the system under test opens any Redis client.
redisCallsSent();
let worker: Worker | undefined;
let reported = false;
let profiler: CpuProfiler | undefined;
let profileFile: string | undefined;
/** Set while a soak runs: fires go to it instead of `recorder`. */
let soak: SoakRecorder | undefined;

function send(message: FromWorker): void {
  process.send?.(message);
}

async function report(): Promise<void> {
  reported = true;
  const result = recorder.result();
  if (profiler && profileFile) await profiler.stopTo(profileFile);
  profiler = undefined;
  send({ type: 'result', result, complete: recorder.complete });
}

function reportIfComplete(): void {
  if (!reported && recorder.complete) void report();
}

const progress = setInterval(() => send({ type: 'progress', fired: recorder.distinct }), PROGRESS_EVERY_MS);
progress.unref();

async function onMessage(message: ToWorker): Promise<void> {
  switch (message.type) {
    case 'start': {
      const system = await loadSystem(message.system);
      worker = await system.openWorker(message.target, message.settings, (id, reportedDueAt) => {
        if (soak) {
          soak.record(id, reportedDueAt);
          return;
        }
        recorder.record(id, reportedDueAt);
        reportIfComplete();
      });
      send({ type: 'ready' });
      return;
    }
    case 'arm':
      profileFile = message.profileFile;
      if (profileFile) {
        profiler = new CpuProfiler();
        await profiler.start();
      }
      recorder.arm(message.plan);
      reported = false;
      send({ type: 'armed' });
      return;
    case 'schedule-local': {
      if (!worker?.scheduleLocal) throw new HarnessError('environment', benchMessages.schedulesFromMain());
      const started = performance.now();
      await worker.scheduleLocal(message.plan);
      send({ type: 'scheduled', elapsedMs: performance.now() - started });
      return;
    }
    case 'collect':
      await report();
      return;
    case 'arm-soak':
      soak = new SoakRecorder(message.plan);
      send({ type: 'armed' });
      return;
    case 'sample': {
      if (!soak) throw new HarnessError('environment', benchMessages.notSoaking());
      const cpu = process.cpuUsage();
      send({ type: 'soak-sample', sample: soak.sample(process.memoryUsage(), cpu.user + cpu.system) });
      return;
    }
    case 'stop':
      clearInterval(progress);
      await worker?.stop();
      send({ type: 'stopped' });
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ToWorker) => {
  onMessage(message).catch((error: unknown) => {
    send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  });
});
process.on('disconnect', () => {
  // The parent is gone (or done with us): nothing left to report to.
  setTimeout(() => process.exit(0), 100).unref();
});
