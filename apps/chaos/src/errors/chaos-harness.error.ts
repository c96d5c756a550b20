/** A failure of the chaos harness itself (a worker, the proxy, the protocol), not of the library under test. */
export class ChaosHarnessError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
