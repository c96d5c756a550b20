/**
 * An action the record's state no longer allows: a late payment, an accept after the search
 * ended, a busy driver. Answered as 409; the message (from the app's messages) says what happened
 * and what to do, and nothing was changed.
 */
export class RecordConflictError extends Error {
  constructor(
    readonly recordId: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
