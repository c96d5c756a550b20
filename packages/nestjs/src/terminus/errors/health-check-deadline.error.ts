/** A health check did not finish in time (caught inside the indicator, reported as down). */
export class HealthCheckDeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
