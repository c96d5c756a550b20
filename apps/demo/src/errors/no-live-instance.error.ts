/** Thrown when no orders instance answers a request for longer than the demo is willing to wait. */
export class NoLiveInstanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
