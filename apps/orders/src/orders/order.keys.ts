/**
 * Builds the Redis keys of the orders state, in one place. The id sits in a hash tag so the keys of
 * one order share a Redis Cluster slot and one script may touch them together.
 */
export class OrderKeys {
  constructor(private readonly prefix: string) {}

  /** Hash with the order's fields. */
  order(id: string): string {
    return `${this.prefix}:order:{${id}}`;
  }

  /** List of the order's status changes (JSON each), oldest first. */
  transitions(id: string): string {
    return `${this.prefix}:order:{${id}}:transitions`;
  }
}
