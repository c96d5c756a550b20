/**
 * Builds the Redis keys of an app's records (orders, trips), in one place. The record id sits in
 * a hash tag, so a record's hash and its transitions list share a Redis Cluster slot and one
 * script may touch both.
 */
export class RecordKeys {
  /**
   * @param prefix the app's KEY_PREFIX.
   * @param kind what a record is, in key names: `order`, `trip`.
   */
  constructor(
    private readonly prefix: string,
    private readonly kind: string,
  ) {}

  /** Hash with the record's fields. */
  record(id: string): string {
    return `${this.prefix}:${this.kind}:{${id}}`;
  }

  /** List of the record's transitions (JSON each), oldest first. */
  transitions(id: string): string {
    return `${this.prefix}:${this.kind}:{${id}}:transitions`;
  }

  /** A key of the app shared by all its records, such as a hash of claimed resources. */
  shared(name: string): string {
    return `${this.prefix}:${name}`;
  }
}
