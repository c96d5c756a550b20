/** A store method was called after `close()`. Create a new store instead. */
export class StoreClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
