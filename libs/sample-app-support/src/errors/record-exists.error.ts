import { recordsMessages } from '../records/records.messages.js';

/** A record with this id already exists (ids are random UUIDs: never expected). */
export class RecordExistsError extends Error {
  constructor(
    readonly kind: string,
    readonly recordId: string,
  ) {
    super(recordsMessages.alreadyExists(kind, recordId));
    this.name = new.target.name;
  }
}
