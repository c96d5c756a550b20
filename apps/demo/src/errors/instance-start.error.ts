/** Thrown when an orders instance exits or stays unhealthy while the demo waits for it to come up. */
export class InstanceStartError extends Error {
  constructor(
    message: string,
    /** The instance's log file, whose end usually says why. */
    readonly logFile: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
