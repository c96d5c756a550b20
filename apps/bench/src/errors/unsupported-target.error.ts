/** A system was asked to run somewhere it is not measured (e.g. BullMQ on a cluster). */
export class UnsupportedTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
