/** Thrown at start when an environment variable has a value the app cannot use. */
export class InvalidConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
