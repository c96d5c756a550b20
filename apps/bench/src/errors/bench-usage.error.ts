/** The command line of `npm run bench` could not be understood; the message carries the usage. */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
