/** A worker process failed, exited, or did not answer in time; the run that used it is reported empty. */
export class WorkerProcessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
