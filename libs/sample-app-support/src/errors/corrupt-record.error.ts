import { recordsMessages } from '../records/records.messages.js';

/** What Redis holds for a record does not have the shape the app writes. */
export class CorruptRecordError extends Error {
  constructor(
    readonly kind: string,
    readonly recordId: string,
    detail: string,
  ) {
    super(recordsMessages.corrupt(kind, recordId, detail));
    this.name = new.target.name;
  }
}
