/** Thrown when an orders instance exits or stays unhealthy while the demo waits for it to come up. */
export class InstanceStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
