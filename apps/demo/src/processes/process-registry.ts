import type { ChildProcess } from 'node:child_process';

/**
 * Every child process the demo started and has not seen exit. Whatever happens (success, a thrown
 * error, Ctrl-C, SIGTERM), `killAll` or the process 'exit' hook makes sure none outlives the demo.
 */
export class ProcessRegistry {
  private readonly live = new Set<ChildProcess>();
  private exitHookInstalled = false;

  /** Tracks a child until it exits. */
  add(child: ChildProcess): void {
    this.installExitHook();
    this.live.add(child);
    child.once('exit', () => this.live.delete(child));
  }

  /** Number of tracked children still running. */
  get size(): number {
    return this.live.size;
  }

  /** Sends SIGKILL to every tracked child and waits (up to `waitMs`) until they are gone. */
  async killAll(waitMs = 5000): Promise<void> {
    const exits = [...this.live].map(
      (child) => new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([Promise.all(exits), deadline]);
    clearTimeout(timer);
  }

  private installExitHook(): void {
    if (this.exitHookInstalled) return;
    this.exitHookInstalled = true;
    // 'exit' handlers run synchronously: a signal is all we can still send.
    process.once('exit', () => {
      for (const child of this.live) {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
}
