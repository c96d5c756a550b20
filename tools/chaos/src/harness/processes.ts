import type { ChildProcess } from 'node:child_process';

const running = new Map<ChildProcess, string>();
let hooked = false;

/** Kills every process the harness started and has not seen exit (SIGCONT first, so a paused one dies too). */
export function killAll(): void {
  for (const child of running.keys()) {
    try {
      if (child.pid) process.kill(child.pid, 'SIGCONT');
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/** Registers a child so it is killed when the harness exits, also on SIGINT/SIGTERM. */
export function track(child: ChildProcess, label: string): void {
  running.set(child, label);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        killAll();
        process.exit(130);
      });
    }
  }
}

/** Forgets a child that exited. */
export function untrack(child: ChildProcess): void {
  running.delete(child);
}

/** Labels of the processes still running, for diagnostics. */
export function runningLabels(): string[] {
  return [...running.values()];
}
