/** `waitUntilReady()` was awaited but the module's bootstrap failed. */
export class ModuleNotStartedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
