/** Thrown when the Redis named by REDIS_URL does not answer PING. */
export class RedisUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
