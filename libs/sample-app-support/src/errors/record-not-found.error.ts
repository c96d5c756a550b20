/** The record id is unknown. Answered as 404; the message (from the app's messages) says what to check. */
export class RecordNotFoundError extends Error {
  constructor(
    readonly recordId: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
