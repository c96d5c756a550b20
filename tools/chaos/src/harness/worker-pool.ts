import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track, untrack } from './processes.js';
import type { FromWorker, ScheduleItem, ScheduleItemResult, ToWorker, WorkerConfig, WorkerCounters } from '../worker-protocol.js';
import { chaosMessages } from '../chaos.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

const WORKER_FILE = fileURLToPath(new URL('../worker.js', import.meta.url));

/** One worker process and what the harness knows of it. */
export class WorkerHandle {
  private nextRequest = 1;
  private readonly pending = new Map<number, (message: FromWorker) => void>();
  /** Set when the worker reported a clean stop (SIGTERM): how long its shutdown took. */
  shutdownMs: number | undefined;
  /** The next occurrence of each recurring schedule the worker upserted at boot (its ready message). */
  readyNextAt: Record<string, number> | undefined;
  /** Counters sent with the clean stop. */
  finalCounters: WorkerCounters | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  private paused = false;

  constructor(
    readonly child: ChildProcess,
    readonly label: string,
    onMessage: (message: FromWorker) => void,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    this.ready = new Promise((resolve, reject) => {
      child.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          this.readyNextAt = message.nextAt;
          resolve();
        }
        if (message.type === 'stopped') {
          this.shutdownMs = message.shutdownMs;
          this.finalCounters = message.counters;
        }
        if ('requestId' in message) {
          this.pending.get(message.requestId)?.(message);
          this.pending.delete(message.requestId);
        }
        onMessage(message);
      });
      this.exited.then(({ code, signal }) => reject(new HarnessError('process', chaosMessages.workerExitedBeforeReady(label, code, signal))));
    });
    this.ready.catch(() => undefined);
  }

  /** Whether the process is still alive. */
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Schedules through this worker's engine (its clock, its connection). */
  async schedule(items: ScheduleItem[]): Promise<ScheduleItemResult[]> {
    const reply = await this.request({ type: 'schedule', requestId: 0, items });
    return reply.type === 'scheduled' ? reply.results : [];
  }

  /** The worker's event counters. */
  async counters(): Promise<WorkerCounters> {
    const reply = await this.request({ type: 'counters', requestId: 0 });
    if (reply.type !== 'counters') throw new HarnessError('process', chaosMessages.unexpectedWorkerReply(this.label, reply.type));
    return reply.counters;
  }

  /** SIGKILL, and wait for the exit. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    this.resume();
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (the worker stops its engine with drain) and wait for the exit; SIGKILL after `graceMs`. */
  async terminate(graceMs: number): Promise<{ killedAfterGrace: boolean }> {
    if (!this.alive) return { killedAfterGrace: false };
    this.resume();
    this.child.kill('SIGTERM');
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      this.child.kill('SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
    return { killedAfterGrace: killed };
  }

  /** SIGSTOP. */
  pause(): void {
    if (this.alive && !this.paused) {
      this.child.kill('SIGSTOP');
      this.paused = true;
    }
  }

  /** SIGCONT after `pause`. */
  resume(): void {
    if (this.alive && this.paused) {
      this.child.kill('SIGCONT');
      this.paused = false;
    }
  }

  private request(message: ToWorker): Promise<FromWorker> {
    const requestId = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, resolve);
      this.exited.then(() => reject(new HarnessError('process', chaosMessages.workerExited(this.label))));
      this.child.send({ ...message, requestId });
    });
  }
}

/** Options of a pool. */
export interface WorkerPoolOptions {
  /** Start a replacement when a worker dies without being told to (crash, `exit-once`). */
  respawn?: boolean;
  /** Environment added to every worker (e.g. `NODE_EXTRA_CA_CERTS`). */
  env?: Record<string, string>;
  /** Called with every message of every worker. */
  onMessage?: (message: FromWorker, worker: WorkerHandle) => void;
  /** Where a worker runs (e.g. `ip netns exec` into a namespace): the Node command `fork` starts, by worker label. */
  place?: (label: string) => { execPath: string; execArgv: string[] };
}

/**
 * Worker processes of one scenario. Collects every line they print (the secret check of the hostile
 * input scenario reads them), restarts crashed workers when asked, and stops them all at the end.
 */
export class WorkerPool {
  readonly workers: WorkerHandle[] = [];
  /** Every line any worker printed on stdout or stderr. */
  readonly logLines: string[] = [];
  private counter = 0;
  private closing = false;
  private readonly expectedExits = new WeakSet<WorkerHandle>();
  /** Workers that died on their own and were replaced. */
  respawns = 0;

  constructor(
    private readonly base: Omit<WorkerConfig, 'label'>,
    private readonly options: WorkerPoolOptions = {},
  ) {}

  /** Starts `count` workers and waits until all are ready. */
  async start(count: number, overrides: Array<Partial<WorkerConfig>> = []): Promise<WorkerHandle[]> {
    const started = Array.from({ length: count }, (_, i) => this.spawn(overrides[i] ?? {}));
    await Promise.all(started.map((worker) => worker.ready));
    return started;
  }

  /** Starts one worker (not waiting for ready). */
  spawn(overrides: Partial<WorkerConfig> = {}): WorkerHandle {
    const label = `worker-${++this.counter}`;
    const config: WorkerConfig = { ...this.base, ...overrides, label };
    const child = fork(WORKER_FILE, [], {
      env: { ...process.env, ...this.options.env, CHAOS_WORKER_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      execArgv: [],
      ...this.options.place?.(label),
    });
    track(child, label);
    const handle = new WorkerHandle(child, label, (message) => this.options.onMessage?.(message, handle));
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        this.logLines.push(...lines.map((line) => `[${label}] ${line}`));
      });
      stream?.on('end', () => partial && this.logLines.push(`[${label}] ${partial}`));
    }
    this.workers.push(handle);
    handle.exited.then(() => {
      untrack(child);
      if (this.closing || this.expectedExits.has(handle) || !this.options.respawn) return;
      this.respawns += 1;
      this.spawn(overrides);
    });
    return handle;
  }

  /** Workers alive now. */
  get alive(): WorkerHandle[] {
    return this.workers.filter((worker) => worker.alive);
  }

  /** A random live worker. */
  pick(): WorkerHandle {
    const alive = this.alive;
    if (alive.length === 0) throw new HarnessError('process', chaosMessages.noLiveWorker());
    return alive[Math.floor(Math.random() * alive.length)]!;
  }

  /** SIGKILLs a worker on purpose (replaced when the pool respawns). */
  async kill(worker: WorkerHandle, replace: boolean): Promise<WorkerHandle | undefined> {
    this.expectedExits.add(worker);
    await worker.kill();
    if (!replace) return undefined;
    const next = this.spawn();
    await next.ready;
    return next;
  }

  /** SIGTERMs a worker (clean shutdown with drain), SIGKILL after `graceMs`. */
  async terminate(worker: WorkerHandle, graceMs: number): Promise<{ killedAfterGrace: boolean }> {
    this.expectedExits.add(worker);
    return worker.terminate(graceMs);
  }

  /** Sum of the live workers' counters. */
  async counters(): Promise<WorkerCounters> {
    const total: WorkerCounters = { fired: 0, retried: 0, dead: 0, stale: 0, released: 0, errors: 0, inFlight: 0, unacked: 0, prototypePolluted: false, leaseLostStale: 0, leaseLostUnrenewed: 0, abortedOther: 0, maxLoopDelayMs: 0 };
    const all = await Promise.all(this.alive.map((worker) => worker.counters().catch(() => undefined)));
    for (const counters of [...all, ...this.workers.map((worker) => worker.finalCounters)]) {
      if (!counters) continue;
      total.fired += counters.fired;
      total.retried += counters.retried;
      total.dead += counters.dead;
      total.stale += counters.stale;
      total.released += counters.released;
      total.errors += counters.errors;
      total.inFlight += counters.inFlight;
      total.unacked += counters.unacked;
      total.prototypePolluted ||= counters.prototypePolluted;
      total.leaseLostStale += counters.leaseLostStale;
      total.leaseLostUnrenewed += counters.leaseLostUnrenewed;
      total.abortedOther += counters.abortedOther;
      total.maxLoopDelayMs = Math.max(total.maxLoopDelayMs, counters.maxLoopDelayMs);
    }
    return total;
  }

  /** Stops every worker: SIGTERM with a short grace, then SIGKILL. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate(5_000).catch(() => undefined)));
  }
}
