/** Thrown by a chaos handler whose payload asks it to fail (poison scenario): the failure under test. */
export class PlannedFailureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
