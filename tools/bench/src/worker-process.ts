import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWorker, ToWorker } from './worker-protocol.js';
import { benchMessages } from './bench.messages.js';
import { HarnessError } from '@durable-timeout/redis-testing';

type Reply<T extends FromWorker['type']> = Extract<FromWorker, { type: T }>;

interface Waiter {
  type: FromWorker['type'];
  resolve: (message: FromWorker) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const WORKER_SCRIPT = fileURLToPath(new URL('./worker.js', import.meta.url));

/** The benchmark's handle on one worker process (`dist/worker.js`), spoken to over IPC. */
export class WorkerProcess {
  private readonly waiters = new Set<Waiter>();
  /** Replies that arrived before anyone waited for them. */
  private readonly inbox: FromWorker[] = [];
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    onProgress: (fired: number) => void,
  ) {
    child.on('message', (message: FromWorker) => {
      if (message.type === 'progress') onProgress(message.fired);
      else if (message.type === 'failed') this.rejectAll(new HarnessError('process', benchMessages.workerFailed(message.message)));
      else this.deliver(message);
    });
    child.once('exit', (code, signal) => {
      this.exited = true;
      this.rejectAll(new HarnessError('process', benchMessages.workerExited(code, signal)));
    });
  }

  /** Forks a worker process. */
  static fork(onProgress: (fired: number) => void): WorkerProcess {
    const child = fork(WORKER_SCRIPT, [], { serialization: 'advanced', stdio: 'inherit' });
    return new WorkerProcess(child, onProgress);
  }

  /** Sends a message and waits for the reply of type `reply`. */
  request<T extends FromWorker['type']>(message: ToWorker, reply: T, timeoutMs: number): Promise<Reply<T>> {
    const waiting = this.waitFor(reply, timeoutMs);
    this.child.send(message);
    return waiting;
  }

  /** Waits for the next message of type `type`. */
  waitFor<T extends FromWorker['type']>(type: T, timeoutMs: number): Promise<Reply<T>> {
    return new Promise<Reply<T>>((resolve, reject) => {
      const early = this.inbox.findIndex((message) => message.type === type);
      if (early >= 0) return resolve(this.inbox.splice(early, 1)[0] as Reply<T>);
      if (this.exited) return reject(new HarnessError('process', benchMessages.workerExited(this.child.exitCode, this.child.signalCode)));
      const waiter: Waiter = {
        type,
        resolve: (message) => resolve(message as Reply<T>),
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new HarnessError('process', benchMessages.workerSilent(type, timeoutMs)));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Asks the worker to stop its system and exit; kills it when it does not within `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (this.exited) return;
    const exit = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      await this.request({ type: 'stop' }, 'stopped', timeoutMs);
    } catch {
      this.child.kill('SIGKILL');
    }
    const killer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await exit;
    clearTimeout(killer);
  }

  private deliver(message: FromWorker): void {
    for (const waiter of this.waiters) {
      if (waiter.type === message.type) {
        this.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve(message);
        return;
      }
    }
    this.inbox.push(message);
  }

  private rejectAll(error: Error): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.waiters.clear();
  }
}
