/**
 * What went wrong in one of the project's harnesses (the demo, the benchmark, the chaos suite):
 * - `usage`: a command-line flag or value it cannot use (the message says which and what works);
 * - `environment`: the machine or server is not one it can run on (Redis unreachable, an INFO
 *   field missing, a system asked to run where it is not measured);
 * - `process`: a process it started failed, exited or did not answer in time (see `logFile`);
 * - `planned`: a failure the harness causes on purpose (a chaos handler told to fail).
 */
export type HarnessFailure = 'usage' | 'environment' | 'process' | 'planned';

/** The one error class of the harnesses: a failure of the harness itself, never of the library under test. */
export class HarnessError extends Error {
  /** Log file of the process that failed, whose end usually says why (`process` failures). */
  readonly logFile: string | undefined;

  constructor(
    /** What kind of failure it is (see `HarnessFailure`). */
    readonly kind: HarnessFailure,
    message: string,
    options: { cause?: unknown; logFile?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HarnessError';
    this.logFile = options.logFile;
  }
}
