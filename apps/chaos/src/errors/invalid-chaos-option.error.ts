/** A command-line argument of `npm run chaos` that cannot be used. */
export class InvalidChaosOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
