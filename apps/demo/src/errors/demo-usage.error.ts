/** Thrown for a flag the demo does not understand or a value out of range; the message says which. */
export class DemoUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
