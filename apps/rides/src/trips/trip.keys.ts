/**
 * Builds the Redis keys of the rides state, in one place. A trip's id sits in a hash tag so its
 * keys share a Redis Cluster slot. The driver assignments are one hash for the whole app: the
 * accept script touches it with the trip's keys, so the app expects a single Redis (not a Cluster).
 */
export class TripKeys {
  constructor(private readonly prefix: string) {}

  /** Hash with the trip's fields. */
  trip(id: string): string {
    return `${this.prefix}:trip:{${id}}`;
  }

  /** List of the trip's status changes (JSON each), oldest first. */
  transitions(id: string): string {
    return `${this.prefix}:trip:{${id}}:transitions`;
  }

  /** Hash driver id -> the trip the driver is assigned to. A driver absent from it is free. */
  driverAssignments(): string {
    return `${this.prefix}:drivers:assigned`;
  }
}
