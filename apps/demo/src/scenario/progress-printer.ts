import type { DemoMode } from '../report/mode-figures.js';

/** Writes the demo's progress: one line per phase, and status lines while it waits. */
export class ProgressPrinter {
  private readonly startedAt = Date.now();

  constructor(
    private readonly mode: DemoMode,
    private readonly write: (line: string) => void = (line) => console.log(line),
  ) {}

  /** Milliseconds since this mode started. */
  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /** A new phase of the scenario. */
  phase(text: string): void {
    this.write(`[${this.mode.padEnd(7)}] ${text}`);
  }

  /** A status line inside a phase, stamped with the time since the mode started. */
  status(text: string): void {
    this.write(`[${this.mode.padEnd(7)}]   ${(this.elapsedMs / 1000).toFixed(1).padStart(5)} s  ${text}`);
  }
}
