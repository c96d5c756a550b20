/** An `INFO` reply lacked a field the benchmark reads: the server is not a Redis it can measure. */
export class UnexpectedInfoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
